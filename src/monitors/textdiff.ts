/**
 * A unified diff of two long strings, capped. Watched values have their whitespace folded
 * (fields.ts), so a page's own lines are gone: the text is cut into lines at sentence and block
 * boundaries (". ", "# ", "- ", "| " …), which an edit elsewhere does not move.
 */
const CONTEXT = 3;
/** Above this many cells (lines × lines) of the part that differs, it is shown as one replaced block. */
const MAX_CELLS = 4_000_000;
const MAX_LINE = 200;

export function splitLines(s: string): string[] {
  if (s === '') return [];
  const parts = s.split(/(?<=[.!?;:])\s+|\s+(?=#{1,6}\s|[-*+]\s|\d{1,3}[.)]\s|\|\s)/);
  const out: string[] = [];
  // Very long runs without a boundary: cut at spaces so one edit does not make one huge line.
  for (const p of parts) {
    let rest = p;
    while (rest.length > MAX_LINE) {
      const cut = rest.lastIndexOf(' ', MAX_LINE);
      const at = cut > MAX_LINE / 2 ? cut : MAX_LINE;
      out.push(rest.slice(0, at));
      rest = rest.slice(at).trimStart();
    }
    out.push(rest);
  }
  return out;
}

type Op = [' ' | '-' | '+', string];

/** The edit script of a → b: common head and tail kept, the middle by longest common subsequence when small enough. */
function edits(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const ops: Op[] = a.slice(0, head).map((l) => [' ', l] as Op);
  if (x.length * y.length <= MAX_CELLS && x.length && y.length) {
    const w = y.length + 1;
    const lcs = new Uint32Array((x.length + 1) * w);
    for (let i = x.length - 1; i >= 0; i--)
      for (let j = y.length - 1; j >= 0; j--)
        lcs[i * w + j] =
          x[i] === y[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    let i = 0;
    let j = 0;
    while (i < x.length && j < y.length) {
      if (x[i] === y[j]) {
        ops.push([' ', x[i]]);
        i++;
        j++;
      } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) ops.push(['-', x[i++]]);
      else ops.push(['+', y[j++]]);
    }
    while (i < x.length) ops.push(['-', x[i++]]);
    while (j < y.length) ops.push(['+', y[j++]]);
  } else {
    for (const l of x) ops.push(['-', l]);
    for (const l of y) ops.push(['+', l]);
  }
  for (const l of a.slice(a.length - tail)) ops.push([' ', l]);
  return ops;
}

/** `--- from` / `+++ to` and `@@ -l,n +l,n @@` hunks with 3 lines of context, cut at a line to `maxBytes` (UTF-8). */
export function unifiedDiff(from: string, to: string, maxBytes: number): { diff: string; truncated: boolean } {
  const ops = edits(splitLines(from), splitLines(to));
  const out: string[] = ['--- from', '+++ to'];
  let ai = 0;
  let bi = 0;
  const pos: [number, number][] = ops.map(([k]) => {
    const p: [number, number] = [ai, bi];
    if (k !== '+') ai++;
    if (k !== '-') bi++;
    return p;
  });
  let k = 0;
  while (k < ops.length) {
    if (ops[k][0] === ' ') {
      k++;
      continue;
    }
    const start = Math.max(0, k - CONTEXT);
    let end = k;
    // Extend over changes closer than two contexts apart.
    for (let q = k; q < ops.length; q++) {
      if (ops[q][0] !== ' ') end = q;
      else if (q - end > 2 * CONTEXT) break;
    }
    const stop = Math.min(ops.length, end + CONTEXT + 1);
    const slice = ops.slice(start, stop);
    const aLen = slice.filter(([t]) => t !== '+').length;
    const bLen = slice.filter(([t]) => t !== '-').length;
    out.push(`@@ -${pos[start][0] + (aLen ? 1 : 0)},${aLen} +${pos[start][1] + (bLen ? 1 : 0)},${bLen} @@`);
    for (const [t, l] of slice) out.push(t + l);
    k = stop;
  }
  let bytes = 0;
  const kept: string[] = [];
  for (const line of out) {
    const n = Buffer.byteLength(line, 'utf8') + 1;
    if (bytes + n > maxBytes) return { diff: kept.join('\n'), truncated: true };
    kept.push(line);
    bytes += n;
  }
  return { diff: kept.join('\n'), truncated: false };
}
