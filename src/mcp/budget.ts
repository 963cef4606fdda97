/**
 * Token budgets for what the tools hand a model. A token is taken as ~4 characters (English
 * prose with markdown averages 3.5–4.5); the cut falls on a paragraph boundary where one is
 * near, so the model never reads half a sentence as if it were whole.
 */

export const CHARS_PER_TOKEN = 4;

export const tokensToChars = (tokens: number) => Math.max(0, Math.floor(tokens * CHARS_PER_TOKEN));
export const charsToTokens = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

export interface Cut {
  text: string;
  /** Whether text was left out after this part. */
  truncated: boolean;
  /** Where the next part starts (characters into the whole text), when truncated. */
  nextOffset?: number;
  totalChars: number;
}

/**
 * The part of `text` from `offset` that fits in `maxChars`, ending at the last paragraph break
 * in its second half (else a line break, a sentence end, a space; a hard cut only for one
 * unbroken run). A fenced code block left open by the cut is closed, so the markdown stays valid.
 */
export function cutText(text: string, maxChars: number, offset = 0): Cut {
  const totalChars = text.length;
  const start = Math.min(Math.max(0, offset), totalChars);
  const rest = text.slice(start);
  if (rest.length <= maxChars) return { text: rest, truncated: false, totalChars };
  const window = rest.slice(0, maxChars + 1);
  const floor = Math.floor(maxChars / 2);
  let end = -1;
  for (const re of [/\n\s*\n/g, /\n/g, /[.!?。！？][)"'\]]?\s/g, /\s/g]) {
    end = lastBreak(window, re, floor, maxChars);
    if (end > 0) break;
  }
  if (end <= 0) end = maxChars;
  // Never split a surrogate pair.
  const code = rest.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  let part = rest.slice(0, end).trimEnd();
  if (openFence(part)) part += '\n```';
  let next = start + end;
  while (next < totalChars && /\s/.test(text[next])) next++;
  return { text: part, truncated: next < totalChars, nextOffset: next < totalChars ? next : undefined, totalChars };
}

/** The end (exclusive) of the last match of `re` ending between floor and max, or -1. */
function lastBreak(window: string, re: RegExp, floor: number, max: number): number {
  let best = -1;
  for (const m of window.matchAll(re)) {
    const end = m.index! + m[0].length;
    if (end > max) break;
    if (end >= floor) best = m.index! + (m[0].startsWith('\n') ? 0 : m[0].trimEnd().length);
  }
  return best;
}

/** An odd number of ``` fence lines means the cut fell inside a code block. */
const openFence = (md: string) => (md.match(/^\s{0,3}(```|~~~)/gm)?.length ?? 0) % 2 === 1;

/**
 * Shares `budget` characters among texts of the given lengths: short ones take what they need,
 * the rest split what is left evenly (water-filling). Returns each one's allowance.
 */
export function shareBudget(lengths: number[], budget: number): number[] {
  const out = lengths.map(() => 0);
  const order = lengths.map((len, i) => ({ len, i })).sort((a, b) => a.len - b.len);
  let left = Math.max(0, budget);
  order.forEach(({ len, i }, k) => {
    const fair = Math.floor(left / (order.length - k));
    out[i] = Math.min(len, fair);
    left -= out[i];
  });
  return out;
}

export interface TrimmedJson {
  value: unknown;
  /** What was shortened, in words a model can act on; empty when nothing was. */
  notes: string[];
}

/**
 * A JSON value made to fit `maxChars` when serialised: long strings are cut first (to 2000, then
 * fewer characters), then long arrays lose their tail, each cut marked in place and listed in notes.
 */
export function trimJson(value: unknown, maxChars: number): TrimmedJson {
  if (JSON.stringify(value ?? null).length <= maxChars) return { value, notes: [] };
  let best: TrimmedJson = { value, notes: [] };
  for (const [maxString, maxItems] of [
    [2000, Infinity],
    [500, Infinity],
    [500, 50],
    [200, 20],
    [100, 10],
    [60, 5],
    [40, 3],
    [20, 1],
  ] as const) {
    const notes = new Set<string>();
    const v = shrink(value, maxString, maxItems, notes, '');
    best = { value: v, notes: [...notes] };
    if (JSON.stringify(v ?? null).length <= maxChars) break;
  }
  return best;
}

function shrink(v: unknown, maxString: number, maxItems: number, notes: Set<string>, path: string): unknown {
  if (typeof v === 'string') {
    if (v.length <= maxString) return v;
    notes.add(`long text cut to ${maxString} characters${path ? ` (e.g. ${path})` : ''}`);
    return `${cutText(v, maxString).text} …[cut: ${v.length} characters in all]`;
  }
  if (Array.isArray(v)) {
    const kept = v.slice(0, maxItems).map((x, i) => shrink(x, maxString, maxItems, notes, `${path}[${i}]`));
    if (v.length > maxItems) notes.add(`${path || 'a list'}: first ${maxItems} of ${v.length} items shown`);
    return kept;
  }
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, shrink(x, maxString, maxItems, notes, path ? `${path}.${k}` : k)]),
    );
  }
  return v;
}
