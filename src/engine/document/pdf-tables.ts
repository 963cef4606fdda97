/**
 * Tables on a PDF page. Ruled tables come from their ruling lines: the lines that touch
 * each other form a grid, a cell whose border is missing on one side spans into its
 * neighbour. Unruled tables come from alignment (pdf-layout.ts finds the bands whose
 * columns are cells, not text; `alignedTable` turns one into rows and columns).
 */
import { fragments, type Fragment } from './pdf-lines.js';
import type { Box, Ruling, Run } from './pdf-page.js';

export interface Cell {
  text: string;
  colspan: number;
  rowspan: number;
}

export interface Table extends Box {
  /** Rows of cells; a spanned position holds no cell (as in HTML). */
  rows: Cell[][];
  /** The fragments the table took from the page's text. */
  taken: Set<Fragment>;
}

/** Rulings closer than this (points) are the same line; ends closer than this touch. */
const SNAP = 2;

interface Line {
  /** Position across the line (y of a horizontal one, x of a vertical one). */
  at: number;
  from: number;
  to: number;
}

/** Merges collinear rulings that overlap or touch (a table's border is often drawn cell by cell). */
function mergeLines(lines: Line[]): Line[] {
  const sorted = [...lines].sort((a, b) => a.at - b.at || a.from - b.from);
  const out: Line[] = [];
  for (const l of sorted) {
    const same = out.filter((o) => Math.abs(o.at - l.at) <= SNAP && l.from <= o.to + SNAP && l.to >= o.from - SNAP);
    if (!same.length) {
      out.push({ ...l });
      continue;
    }
    const keep = same[0];
    for (const o of same) {
      keep.from = Math.min(keep.from, o.from, l.from);
      keep.to = Math.max(keep.to, o.to, l.to);
      keep.at = (keep.at + l.at) / 2;
      if (o !== keep) out.splice(out.indexOf(o), 1);
    }
  }
  return out;
}

/** Ruled tables of a page, the fragments inside them claimed. */
export function ruledTables(rulings: Ruling[], runs: Run[], frags: Fragment[]): Table[] {
  const hs = mergeLines(rulings.filter((r) => r.y0 === r.y1).map((r) => ({ at: r.y0, from: r.x0, to: r.x1 })));
  const vs = mergeLines(rulings.filter((r) => r.x0 === r.x1).map((r) => ({ at: r.x0, from: r.y0, to: r.y1 })));
  const tables: Table[] = [];
  for (const { h, v } of gridComponents(hs, vs)) {
    const t = gridTable(h, v, runs, frags);
    if (t) tables.push(t);
  }
  return tables;
}

/** Groups horizontal and vertical lines into sets that cross or touch one another. */
function gridComponents(hs: Line[], vs: Line[]): { h: Line[]; v: Line[] }[] {
  const all = [...hs.map((l) => ({ l, h: true })), ...vs.map((l) => ({ l, h: false }))];
  const parent = all.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  for (let i = 0; i < hs.length; i++) {
    for (let j = 0; j < vs.length; j++) {
      const h = hs[i];
      const v = vs[j];
      if (v.at >= h.from - SNAP && v.at <= h.to + SNAP && h.at >= v.from - SNAP && h.at <= v.to + SNAP)
        parent[find(i)] = find(hs.length + j);
    }
  }
  const groups = new Map<number, { h: Line[]; v: Line[] }>();
  all.forEach((e, i) => {
    const g = groups.get(find(i)) ?? { h: [], v: [] };
    (e.h ? g.h : g.v).push(e.l);
    groups.set(find(i), g);
  });
  return [...groups.values()].filter((g) => g.h.length >= 2 && g.v.length >= 2);
}

/** Positions within SNAP of each other, once. */
function clusterPositions(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const out: number[] = [];
  for (const v of sorted) if (!out.length || v - out[out.length - 1] > SNAP) out.push(v);
  return out;
}

/** Whether a line at `at` covers most of [from, to]. */
const covers = (lines: Line[], at: number, from: number, to: number) => {
  let covered = 0;
  for (const l of lines)
    if (Math.abs(l.at - at) <= SNAP) covered += Math.max(0, Math.min(l.to, to) - Math.max(l.from, from));
  return covered >= 0.6 * (to - from);
};

function gridTable(h: Line[], v: Line[], runs: Run[], frags: Fragment[]): Table | undefined {
  const ys = clusterPositions(h.map((l) => l.at));
  const xs = clusterPositions(v.map((l) => l.at));
  if (ys.length < 2 || xs.length < 2) return undefined;
  const box = { x0: xs[0], y0: ys[0], x1: xs[xs.length - 1], y1: ys[ys.length - 1] };
  const nr = ys.length - 1;
  const nc = xs.length - 1;
  // Grid positions joined where the border between them is missing.
  const id = (r: number, c: number) => r * nc + c;
  const parent = Array.from({ length: nr * nc }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  for (let r = 0; r < nr; r++) {
    for (let c = 0; c < nc; c++) {
      if (c + 1 < nc && !covers(v, xs[c + 1], ys[r], ys[r + 1])) parent[find(id(r, c + 1))] = find(id(r, c));
      if (r + 1 < nr && !covers(h, ys[r + 1], xs[c], xs[c + 1])) parent[find(id(r + 1, c))] = find(id(r, c));
    }
  }
  // Each merged group must be a rectangle; otherwise the grid is read without spans.
  const spans = new Map<number, { r0: number; c0: number; r1: number; c1: number; n: number }>();
  for (let r = 0; r < nr; r++)
    for (let c = 0; c < nc; c++) {
      const g = find(id(r, c));
      const s = spans.get(g) ?? { r0: r, c0: c, r1: r, c1: c, n: 0 };
      s.r0 = Math.min(s.r0, r);
      s.c0 = Math.min(s.c0, c);
      s.r1 = Math.max(s.r1, r);
      s.c1 = Math.max(s.c1, c);
      s.n++;
      spans.set(g, s);
    }
  const rectangular = [...spans.values()].every((s) => (s.r1 - s.r0 + 1) * (s.c1 - s.c0 + 1) === s.n);
  // The text inside: runs by their middle.
  const inside = runs.filter((r) => {
    const cx = (r.x0 + r.x1) / 2;
    const cy = r.y - 0.3 * r.size;
    return cx > box.x0 && cx < box.x1 && cy > box.y0 && cy < box.y1;
  });
  if (!inside.length) return undefined;
  const cellRuns = new Map<number, Run[]>();
  const where = (x: number, y: number) => {
    const c = xs.findIndex((_, i) => i < nc && x >= xs[i] && x < xs[i + 1]);
    const r = ys.findIndex((_, i) => i < nr && y >= ys[i] && y < ys[i + 1]);
    return c < 0 || r < 0 ? -1 : rectangular ? find(id(r, c)) : id(r, c);
  };
  for (const run of inside) {
    const k = where((run.x0 + run.x1) / 2, run.y - 0.3 * run.size);
    if (k < 0) continue;
    const list = cellRuns.get(k) ?? [];
    list.push(run);
    cellRuns.set(k, list);
  }
  const rows: Cell[][] = [];
  for (let r = 0; r < nr; r++) {
    const row: Cell[] = [];
    for (let c = 0; c < nc; c++) {
      const g = rectangular ? find(id(r, c)) : id(r, c);
      const s = rectangular ? spans.get(g)! : { r0: r, c0: c, r1: r, c1: c };
      if (s.r0 !== r || s.c0 !== c) continue;
      row.push({ text: cellText(cellRuns.get(g) ?? []), colspan: s.c1 - s.c0 + 1, rowspan: s.r1 - s.r0 + 1 });
    }
    rows.push(row);
  }
  // A frame around text (one cell, or a box of paragraphs under a title) is not a table;
  // a column of ruled rows is.
  const cells = rows.flat();
  const words = (c: Cell) => (c.text ? c.text.split(' ').length : 0);
  if (cells.filter((c) => c.text).length < 2) return undefined;
  if (cells.some((c) => words(c) > (nc < 2 ? 25 : 80))) return undefined;
  const taken = new Set(
    frags.filter((f) => {
      const cx = (f.x0 + f.x1) / 2;
      const cy = (f.top + f.bottom) / 2;
      return cx > box.x0 && cx < box.x1 && cy > box.y0 && cy < box.y1;
    }),
  );
  return { ...box, rows: dropEmptyRows(rows), taken };
}

/** Rows with no text (a spacer between ruled sections) say nothing. */
const dropEmptyRows = (rows: Cell[][]) => rows.filter((r) => r.some((c) => c.text) || r.some((c) => c.rowspan > 1));

/** A cell's runs as one line of text: its lines in order, a hyphen broken across lines joined. */
function cellText(runs: Run[]): string {
  if (!runs.length) return '';
  const lines = fragments(runs).sort((a, b) => a.y - b.y || a.x0 - b.x0);
  // Fragments of one baseline (a cell is narrow: a gap in it is still the same line) join first.
  const joined: Fragment[][] = [];
  for (const f of lines) {
    const last = joined[joined.length - 1];
    if (last && Math.abs(last[0].y - f.y) < 0.3 * f.size) last.push(f);
    else joined.push([f]);
  }
  let text = '';
  for (const line of joined) {
    const t = line
      .sort((a, b) => (a.rtl ? b.x1 - a.x1 : a.x0 - b.x0))
      .map((f) => f.text)
      .join(' ');
    if (!text) text = t;
    else if (/[a-z]-$/.test(text) && /^[a-z]/.test(t)) text = text + t;
    // A compound broken after its hyphen ("Math-" / "Instruct") stays one word.
    else if (/[\p{L}\d]-$/u.test(text) && /^[\p{Lu}\d]/u.test(t)) text += t;
    else text += ' ' + t;
  }
  return text.trim();
}

/**
 * Rows and columns of an unruled table: `rows` are its lines (fragments on one baseline),
 * `cuts` the x positions between its columns. A line that continues a cell wrapped onto
 * two lines joins the row above: it fills fewer cells than that row and either leaves the
 * first column empty or sits closer to it than rows sit to each other.
 */
export function alignedTable(rows: Fragment[][], cuts: number[], rtl: boolean): Cell[][] {
  const nc = cuts.length + 1;
  const col = (f: Fragment) => {
    const cx = (f.x0 + f.x1) / 2;
    let c = 0;
    while (c < cuts.length && cx > cuts[c]) c++;
    return rtl ? nc - 1 - c : c;
  };
  const ys = rows.map((r) => r[0].y);
  const pitches = ys
    .slice(1)
    .map((y, i) => y - ys[i])
    .sort((a, b) => a - b);
  const rowPitch = pitches.length ? pitches[Math.floor(pitches.length / 2)] : 0;
  const out: string[][] = [];
  let prevFilled = 0;
  rows.forEach((line, i) => {
    const cells: string[] = Array.from({ length: nc }, () => '');
    for (const f of [...line].sort((a, b) => a.x0 - b.x0)) {
      const c = col(f);
      cells[c] = cells[c] ? `${cells[c]} ${f.text}` : f.text;
    }
    const filled = cells.filter(Boolean).length;
    const last = out[out.length - 1];
    const close = i > 0 && ys[i] - ys[i - 1] < 0.8 * rowPitch;
    if (last && filled < prevFilled && (close || (!cells[0] && filled <= Math.max(1, nc / 2)))) {
      cells.forEach((t, c) => {
        if (t) last[c] = last[c] ? (/[a-z]-$/.test(last[c]) && /^[a-z]/.test(t) ? last[c] + t : `${last[c]} ${t}`) : t;
      });
      return;
    }
    out.push(cells);
    prevFilled = filled;
  });
  return out.map((r) => r.map((text) => ({ text, colspan: 1, rowspan: 1 })));
}
