/**
 * Reading order on a PDF page, by recursive cuts along whitespace (an XY-cut): the page is
 * sliced into horizontal strips wherever no text crosses; consecutive strips that share a
 * vertical gutter form a band, and a band is cut into its columns, read one after the
 * other (right to left on a right-to-left page), each column again the same way. A band
 * whose "columns" are short aligned cells rather than text is an unruled table.
 */
import type { Fragment } from './pdf-lines.js';
import type { Box } from './pdf-page.js';
import { alignedTable, type Table } from './pdf-tables.js';

export interface Item {
  x0: number;
  x1: number;
  top: number;
  bottom: number;
  frag?: Fragment;
  table?: Table;
}

/** What a page is read as, in order: lines of text within a column, or a table. */
export type Unit = { line: Line } | { table: Table };

/** A line as read: its fragment's text, place and style (not its runs), in its column. */
export interface Line extends Omit<Fragment, 'runs'> {
  /** The column the line was read in (its left and right edges). */
  col: { x0: number; x1: number };
  /** A bullet is drawn left of the line (a disc, not a glyph). */
  bullet: boolean;
}

export function itemOf(f: Fragment): Item {
  return { x0: f.x0, x1: f.x1, top: f.top, bottom: f.bottom, frag: f };
}

export function tableItem(t: Table): Item {
  return { x0: t.x0, x1: t.x1, top: t.y0, bottom: t.y1, table: t };
}

const median = (xs: number[]) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Orders a page's items (fragments and ruled tables) into lines and tables. */
export function readingOrder(items: Item[], rtl: boolean, dots: Box[]): Unit[] {
  const units: Unit[] = [];
  for (const leaf of arrange(items, rtl, 0)) {
    if ('table' in leaf) units.push({ table: leaf.table });
    else units.push(...leafLines(leaf.items, rtl, dots));
  }
  return units;
}

type Leaf = { items: Item[] } | { table: Table };

/** Horizontal slices of `items` with no text crossing between them, top to bottom. */
function strips(items: Item[]): Item[][] {
  const sorted = [...items].sort((a, b) => a.top - b.top);
  const out: Item[][] = [];
  let bottom = -Infinity;
  for (const it of sorted) {
    // Overlap of less than a fifth of the smaller height is a touch, not a crossing.
    const h = it.bottom - it.top;
    if (out.length && it.top < bottom - 0.2 * h) {
      out[out.length - 1].push(it);
      bottom = Math.max(bottom, it.bottom);
    } else {
      out.push([it]);
      bottom = it.bottom;
    }
  }
  return out;
}

type Interval = [number, number];

/** The whitespace between items across [x0, x1]. */
function whitespace(items: Item[], x0: number, x1: number): Interval[] {
  const sorted = [...items].sort((a, b) => a.x0 - b.x0);
  const out: Interval[] = [];
  let at = x0;
  for (const it of sorted) {
    if (it.x0 > at) out.push([at, it.x0]);
    at = Math.max(at, it.x1);
  }
  if (at < x1) out.push([at, x1]);
  return out;
}

function intersect(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const [a0, a1] of a)
    for (const [b0, b1] of b) {
      const lo = Math.max(a0, b0);
      const hi = Math.min(a1, b1);
      if (hi > lo) out.push([lo, hi]);
    }
  return out;
}

/** The left and right edges of some items. */
type Span = [number, number];
const spanOf = (items: Item[]): Span => {
  let a = Infinity;
  let b = -Infinity;
  for (const i of items) {
    if (i.x0 < a) a = i.x0;
    if (i.x1 > b) b = i.x1;
  }
  return [a, b];
};
const join = (p: Span, q: Span): Span => [Math.min(p[0], q[0]), Math.max(p[1], q[1])];

/** Gutters among `ws` that have text on both sides (within `span`) and are at least `min` wide. */
function gutters(ws: Interval[], span: Span, min: number): Interval[] {
  return ws.filter(([a, b]) => b - a >= min && a > span[0] && b < span[1]);
}

/** Narrowest gap between table columns, and between text columns (in ems of the text). */
const CELL_GAP = 0.5;
const GUTTER = 0.9;

function arrange(items: Item[], rtl: boolean, depth: number): Leaf[] {
  if (!items.length) return [];
  const x0 = Math.min(...items.map((i) => i.x0));
  const x1 = Math.max(...items.map((i) => i.x1));
  const em = median(items.filter((i) => i.frag).map((i) => i.frag!.size)) || 10;
  const min = Math.max(em * CELL_GAP, 3);
  const wideEnough = ([a, b]: Interval) => b - a >= GUTTER * em;
  const out: Leaf[] = [];
  let band: Item[] = [];
  let ws: Interval[] = [];
  let bandHasGutter = false;
  let bandStrips = 0;
  let bandSpan: Span = [Infinity, -Infinity];
  const close = () => {
    if (band.length)
      out.push(...cutBand(band, bandHasGutter ? gutters(ws, bandSpan, min) : [], rtl, depth, em, bandStrips));
    band = [];
  };
  const all = strips(items);
  const owns = all.map((s) => whitespace(s, x0, x1));
  const spans = all.map(spanOf);
  for (let i = 0; i < all.length; i++) {
    const strip = all[i];
    const own = owns[i];
    const ownGutter = gutters(own, spans[i], min).length > 0;
    if (band.length) {
      const joint = intersect(ws, own);
      const together = join(bandSpan, spans[i]);
      const jointGutter = gutters(joint, together, min).length > 0;
      // Columns stay columns: a strip that crosses a wide gutter two strips have kept open
      // (a footer or a title across the page) ends the band, and so does one crossing a
      // narrow gutter that three strips have kept open (the columns of a table, not word
      // spaces that happen to line up).
      const kept = gutters(ws, bandSpan, min)
        .filter((g) => (wideEnough(g) && bandStrips >= 2) || bandStrips >= 3)
        .every((g) => intersect([g], joint).some(([a, b]) => b - a >= min));
      // A line standing alone at the top of a right-hand column (its column starts higher
      // than the one on its left) opens the columns' band rather than closing the band
      // before them.
      const next =
        i + 1 < all.length
          ? gutters(intersect(own, owns[i + 1]), join(spans[i], spans[i + 1]), min).filter(wideEnough)
          : [];
      const stripStart = rtl ? spans[i][1] : spans[i][0];
      const opensNext =
        !bandHasGutter && !ownGutter && next.some(([a, b]) => (rtl ? stripStart <= a : stripStart >= b));
      if (!opensNext && ((jointGutter && kept) || (!bandHasGutter && !ownGutter))) {
        for (const it of strip) band.push(it);
        ws = joint;
        bandSpan = together;
        bandHasGutter = jointGutter;
        bandStrips++;
        continue;
      }
      close();
    }
    band = [...strip];
    ws = own;
    bandSpan = spans[i];
    bandHasGutter = ownGutter;
    bandStrips = 1;
  }
  close();
  return out;
}

/** Items split at the middles of `cuts`, left to right. */
function split(items: Item[], cuts: Interval[]): Item[][] {
  const mids = cuts.map(([a, b]) => (a + b) / 2);
  const cols: Item[][] = mids.map(() => []).concat([[]]);
  for (const it of items) {
    const cx = (it.x0 + it.x1) / 2;
    let c = 0;
    while (c < mids.length && cx > mids[c]) c++;
    cols[c].push(it);
  }
  return cols;
}

/**
 * A band cut at its gutters: a table (its columns are cells), text columns (read in turn,
 * split only at gutters wide enough to be a page's columns), or lines read as they come.
 * Word spaces of justified lines can line up for a few lines: a gutter is a column's edge
 * when text fills a column beside it, or when it runs down through many lines.
 */
function cutBand(band: Item[], cuts: Interval[], rtl: boolean, depth: number, em: number, strips: number): Leaf[] {
  if (!cuts.length || depth > 6) return [{ items: band }];
  const found = asTable(band, cuts, rtl, em);
  if (found)
    return [
      ...(found.above.length ? [{ items: found.above }] : []),
      { table: found.table },
      ...arrange(found.below, rtl, depth + 1),
    ];
  const wide = cuts.filter(([a, b]) => b - a >= GUTTER * em);
  if (!wide.length || lineCount(band) <= 1) return [{ items: band }];
  const cols = split(band, wide);
  // Inside a column, columns again are rare (a justified column's word spaces are not):
  // there every part must be text, over many lines.
  const columns =
    depth === 0
      ? strips >= 6 || cols.some((c) => textColumn(c, em))
      : strips >= 6 && cols.every((c) => textColumn(c, em));
  if (!columns) return [{ items: band }];
  const ordered = rtl ? [...cols].reverse() : cols;
  return ordered.flatMap((c) => arrange(c, rtl, depth + 1));
}

const widthOf = (c: Item[]) => Math.max(...c.map((i) => i.x1)) - Math.min(...c.map((i) => i.x0));

/** A column of text: ten ems wide or more, most of its lines filling it. */
function textColumn(c: Item[], em: number): boolean {
  if (!c.some((i) => i.frag)) return false;
  const w = widthOf(c);
  const lines = rowsOf(c.filter((i) => i.frag)).map(
    (r) => Math.max(...r.map((f) => f.x1)) - Math.min(...r.map((f) => f.x0)),
  );
  return lines.length >= 2 && w >= 10 * em && lines.filter((x) => x >= 0.7 * w).length >= 0.5 * lines.length;
}

/** Distinct baselines among a band's fragments. */
function lineCount(items: Item[]): number {
  const ys = items
    .filter((i) => i.frag)
    .map((i) => i.frag!.y)
    .sort((a, b) => a - b);
  let n = 0;
  let last = -Infinity;
  for (const y of ys) {
    if (y - last > 2) n++;
    last = y;
  }
  return n;
}

/** Fragments grouped by baseline, top to bottom. */
function rowsOf(items: Item[]): Fragment[][] {
  const frags = items.map((i) => i.frag!).sort((a, b) => a.y - b.y || a.x0 - b.x0);
  const rows: Fragment[][] = [];
  for (const f of frags) {
    const last = rows[rows.length - 1];
    if (last && Math.abs(last[0].y - f.y) < 0.4 * f.size) last.push(f);
    else rows.push([f]);
  }
  return rows;
}

/**
 * A band is a table when its columns are not text: a text column is wide (a dozen ems
 * or more) and its lines fill it. Cells are short, and most rows put text in several
 * columns at the same height. Lines at the band's edges set in another size (a heading
 * just below the table) or standing apart are not rows.
 */
function asTable(
  band: Item[],
  cuts: Interval[],
  rtl: boolean,
  em: number,
): { table: Table; above: Item[]; below: Item[] } | undefined {
  if (band.some((i) => i.table || !i.frag) || band.every((i) => i.frag!.mono > 0.6)) return undefined;
  const bandWidth = widthOf(band);
  // A text column has no gap running down through all its lines (numeric columns side by
  // side have one).
  const textCol = (c: Item[]) => {
    if (!c.length) return false;
    const left = Math.min(...c.map((i) => i.x0));
    return !cuts.some(([a, b]) => a > left && b < left + widthOf(c)) && textColumn(c, em);
  };
  const wideCols = split(
    band,
    cuts.filter(([a, b]) => b - a >= GUTTER * em),
  );
  if (wideCols.length > 1 && wideCols.every(textCol)) return undefined;
  // A column of text beside narrow ones (a sidebar, margin notes) is not a table either,
  // unless its lines each have a cell beside them (a table's column of long notes).
  const beside = (c: Item[]) => {
    const others = band.filter((i) => !c.includes(i) && i.frag).map((i) => i.frag!);
    const lines = rowsOf(c);
    return lines.filter((r) => others.some((o) => Math.abs(o.y - r[0].y) < 0.4 * o.size)).length / lines.length;
  };
  if (wideCols.some((c) => textCol(c) && widthOf(c) >= 0.4 * bandWidth && beside(c) < 0.7)) return undefined;
  let rows = rowsOf(band);
  const sizes = rows.map((r) => median(r.map((f) => f.size)));
  const usual = median(sizes);
  const pitches = rows.slice(1).map((r, i) => r[0].y - rows[i][0].y);
  const pitch = median(pitches);
  let top = 0;
  let bottom = rows.length;
  const bold = rows.map((r) => r.every((f) => f.bold > 0.6));
  const usuallyBold = bold.filter(Boolean).length * 2 > rows.length;
  // A heading above or below: another size, or a bold line alone among regular rows.
  const apart = (i: number) =>
    Math.abs(sizes[i] - usual) > 0.12 * usual || (rows[i].length === 1 && bold[i] && !usuallyBold);
  while (top < bottom && (apart(top) || (top + 1 < bottom && pitches[top] > 1.8 * pitch && rows[top].length === 1)))
    top++;
  while (
    bottom > top &&
    (apart(bottom - 1) || (bottom - 2 >= top && pitches[bottom - 2] > 1.8 * pitch && rows[bottom - 1].length === 1))
  )
    bottom--;
  const above = rows.slice(0, top).flat();
  const below = rows.slice(bottom).flat();
  rows = rows.slice(top, bottom);
  if (rows.length < 2) return undefined;
  const inRows = new Set(rows.flat());
  const used = band.filter((i) => inRows.has(i.frag!));
  const x0 = Math.min(...used.map((i) => i.x0));
  const x1 = Math.max(...used.map((i) => i.x1));
  // The columns of the rows themselves: gutters all of them share.
  let ws: Interval[] = [[x0, x1]];
  for (const r of rows) ws = intersect(ws, whitespace(r.map(itemOf), x0, x1));
  const colCuts = gutters(ws, spanOf(used), Math.max(em * CELL_GAP, 3));
  if (!colCuts.length) return undefined;
  const mids = colCuts.map(([a, b]) => (a + b) / 2);
  const colOf = (f: Fragment) => mids.filter((m) => (f.x0 + f.x1) / 2 > m).length;
  const multi = rows.filter((r) => new Set(r.map(colOf)).size >= 2).length;
  if (multi < 2 || multi < 0.5 * rows.length) return undefined;
  // Two lines whose word spaces happen to line up are not a table: a table has three rows
  // or more unless its columns stand well apart, and its rows do not fill their width the
  // way the lines of justified text do.
  const narrowest = Math.min(...colCuts.map(([a, b]) => b - a));
  if (rows.length < 3 && narrowest < 1.5 * em) return undefined;
  // Justified text: nearly every row runs from edge to edge, the gaps all that is not text.
  const coverage = median(rows.map((r) => r.reduce((s, f) => s + f.x1 - f.x0, 0) / (x1 - x0)));
  const spanning = rows.filter(
    (r) => Math.min(...r.map((f) => f.x0)) < x0 + 0.5 * em && Math.max(...r.map((f) => f.x1)) > x1 - 0.5 * em,
  ).length;
  if (coverage > 0.75 && spanning >= 0.6 * rows.length) return undefined;
  // Prose: most pieces start in lower case (a sentence going on), where cells mostly start
  // with a capital or a number.
  const pieces = rows.flat();
  if (pieces.filter((f) => /^\p{Ll}/u.test(f.text)).length > 0.4 * pieces.length) return undefined;
  // Long runs of words in the cells: text that happens to align, not a table.
  const words = rows.flat().map((f) => f.text.split(' ').length);
  if (median(words) > 8) return undefined;
  const cells = alignedTable(rows, mids, rtl);
  if (cells.length < 2) return undefined;
  const y0 = Math.min(...used.map((i) => i.top));
  const y1 = Math.max(...used.map((i) => i.bottom));
  const byFrag = new Map(band.map((i) => [i.frag!, i]));
  return {
    table: { x0, x1, y0, y1, rows: cells, taken: inRows },
    above: above.map((f) => byFrag.get(f)!),
    below: below.map((f) => byFrag.get(f)!),
  };
}

/** A column's fragments as lines, top to bottom; pieces on one baseline join left to right. */
function leafLines(items: Item[], rtl: boolean, dots: Box[]): Unit[] {
  const units: Unit[] = [];
  const frags = items.filter((i) => i.frag).map((i) => i.frag!);
  const tables = items.filter((i) => i.table);
  const col = { x0: Math.min(...items.map((i) => i.x0)), x1: Math.max(...items.map((i) => i.x1)) };
  frags.sort((a, b) => a.y - b.y || a.x0 - b.x0);
  const groups: Fragment[][] = [];
  for (const f of frags) {
    const last = groups[groups.length - 1];
    if (last && Math.abs(last[0].y - f.y) < 0.4 * Math.min(last[0].size, f.size)) last.push(f);
    else groups.push([f]);
  }
  const lines = groups.map((g) => lineOf(g, rtl, col, dots));
  // Tables inside a column keep their place among its lines.
  const all: (Unit & { at: number })[] = [
    ...lines.map((line) => ({ line, at: line.top })),
    ...tables.map((t) => ({ table: t.table!, at: t.top })),
  ];
  all.sort((a, b) => a.at - b.at);
  for (const u of all) units.push('line' in u ? { line: u.line } : { table: u.table });
  return units;
}

function lineOf(g: Fragment[], rtl: boolean, col: { x0: number; x1: number }, dots: Box[]): Line {
  const ordered = [...g].sort((a, b) => (rtl ? b.x1 - a.x1 : a.x0 - b.x0));
  const chars = (f: Fragment) => f.text.length || 1;
  const total = g.reduce((s, f) => s + chars(f), 0);
  const mean = (k: 'bold' | 'italic' | 'mono') => g.reduce((s, f) => s + f[k] * chars(f), 0) / total;
  const main = [...g].sort((a, b) => chars(b) - chars(a))[0];
  const line: Line = {
    text: ordered.map((f) => f.text).join(' '),
    x0: Math.min(...g.map((f) => f.x0)),
    x1: Math.max(...g.map((f) => f.x1)),
    y: main.y,
    top: Math.min(...g.map((f) => f.top)),
    bottom: Math.max(...g.map((f) => f.bottom)),
    size: main.size,
    bold: mean('bold'),
    italic: mean('italic'),
    mono: mean('mono'),
    rtl,
    col,
    bullet: false,
  };
  const start = rtl ? line.x1 : line.x0;
  line.bullet = dots.some((d) => {
    const cy = (d.y0 + d.y1) / 2;
    const near = rtl ? d.x0 > start && d.x0 < start + 3 * line.size : d.x1 < start && d.x1 > start - 3 * line.size;
    return near && cy > line.top && cy < line.bottom && d.y1 - d.y0 < 0.6 * line.size;
  });
  return line;
}
