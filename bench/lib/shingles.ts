/**
 * The article-extraction-benchmark metric: 4-gram shingles of `\w+` tokens, true/false
 * positives normalised per page, precision and recall averaged over pages, F1 of the means.
 */
const TOKEN = /[\p{L}\p{N}_]+/gu;

function shingles(text: string, n = 4): Map<string, number> {
  const tokens = text.match(TOKEN) ?? [];
  const out = new Map<string, number>();
  const last = Math.max(1, tokens.length - n + 1);
  for (let i = 0; i < last; i++) {
    const s = tokens.slice(i, i + n);
    if (!s.length) continue;
    const k = s.join('\u0001');
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

export type TpFpFn = [number, number, number];

export function shingleMatch(truth: string, pred: string): TpFpFn {
  const t = shingles(truth);
  const p = shingles(pred);
  let tp = 0,
    fp = 0,
    fn = 0;
  for (const k of new Set([...t.keys(), ...p.keys()])) {
    const a = t.get(k) ?? 0;
    const b = p.get(k) ?? 0;
    tp += Math.min(a, b);
    fp += Math.max(0, b - a);
    fn += Math.max(0, a - b);
  }
  const s = tp + fp + fn;
  return s > 0 ? [tp / s, fp / s, fn / s] : [0, 0, 0];
}

const precision = ([tp, fp, fn]: TpFpFn) => (fp === 0 && fn === 0 ? 1 : tp === 0 && fp === 0 ? 0 : tp / (tp + fp));
const recall = ([tp, fp, fn]: TpFpFn) => (fp === 0 && fn === 0 ? 1 : tp === 0 && fn === 0 ? 0 : tp / (tp + fn));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

export function scores(items: TpFpFn[]): { precision: number; recall: number; f1: number } {
  const p = mean(items.filter(([tp, fp]) => tp + fp > 0).map(precision));
  const r = mean(items.filter(([tp, , fn]) => tp + fn > 0).map(recall));
  return { precision: p, recall: r, f1: p + r ? (2 * p * r) / (p + r) : 0 };
}

/** Markdown → the visible text: images dropped, link targets dropped, link text kept. */
export function markdownToText(md: string): string {
  return md
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\]\((?:[^()]|\([^)]*\))*\)/g, ']')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, '$1');
}

/** Characters Markdown lets a backslash make literal (CommonMark's ASCII punctuation we emit). */
const ESCAPE = /\\([\\`*_{}[\]()#+\-.!|<>~])/g;
/** An escaped character while syntax is stripped: a private-use code point (U+E000 + its code), restored at the end (no page of the corpora has text in that range). */
const HIDDEN = /[\uE000-\uE07F]/g;

/**
 * Markdown → plain text as a reader sees it: images dropped, links to their text, emphasis,
 * heading, list and quote markers, code fences and table pipes removed, whitespace collapsed
 * to single spaces. An escaped character (`\*`, `\[`) is text the reader sees, so it is
 * set aside before the syntax is stripped and put back after; brackets that are no link
 * ("[1]" of a footnote) are text too.
 */
export function markdownToPlain(md: string): string {
  return md
    .replace(ESCAPE, (_, c: string) => String.fromCharCode(0xe000 + c.charCodeAt(0)))
    .replace(/!\[[^\]]*\]\((?:[^()]|\([^)]*\))*\)/g, ' ')
    .replace(/\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, '$1')
    .replace(/^\s*(?:```|~~~).*$/gm, ' ')
    .replace(/^\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*$/gm, ' ')
    .replace(/^[ \t]*(?:>[ \t]?)+/gm, '')
    .replace(/^[ \t]*#{1,6}[ \t]+/gm, '')
    .replace(/^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+/gm, '')
    .replace(/\|/g, ' ')
    .replace(/\*\*|__|~~|`/g, '')
    .replace(/(^|[\s(["'])[*_](?=\S)/g, '$1')
    .replace(/(\S)[*_](?=$|[\s)\]"'.,;:!?])/gm, '$1')
    .replace(HIDDEN, (c) => String.fromCharCode(c.charCodeAt(0) - 0xe000))
    .replace(/\s+/g, ' ')
    .trim();
}

export interface SnippetTally {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** trafilatura's evaluation: each wanted snippet found is a true positive, each unwanted one found a false positive. */
export function snippetScores(plain: string, withSnippets: string[], withoutSnippets: string[]): SnippetTally {
  const t: SnippetTally = { tp: 0, fn: 0, fp: 0, tn: 0 };
  for (const s of withSnippets)
    if (plain.includes(squash(s))) t.tp++;
    else t.fn++;
  for (const s of withoutSnippets)
    if (plain.includes(squash(s))) t.fp++;
    else t.tn++;
  return t;
}
