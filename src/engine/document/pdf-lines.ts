/**
 * Text runs → lines → fragments. A line is the runs along one baseline (superscripts and
 * subscripts included); a fragment is a stretch of a line without a wide gap in it. On a
 * two-column page one printed line holds two fragments, in a table one per cell: the
 * fragment, not the line, is what layout arranges.
 */
import type { Run } from './pdf-page.js';

export interface Fragment {
  text: string;
  x0: number;
  x1: number;
  /** Baseline. */
  y: number;
  /** Top and bottom of the text (ascent above, descent below the baseline). */
  top: number;
  bottom: number;
  /** The dominant font size (by characters). */
  size: number;
  /** Share of the characters set in bold. */
  bold: number;
  italic: number;
  mono: number;
  rtl: boolean;
  runs: Run[];
}

/**
 * A gap wider than this many ems splits a line into fragments: a word space is ~0.25 em
 * (stretched up to ~0.6 in justified lines, which pdf.js mostly reports as one piece of
 * text anyway); table cells in a tight table sit ~0.5 em apart.
 */
const SPLIT_EM = 0.5;

/** Groups runs into lines and cuts the lines into fragments. */
export function fragments(runs: Run[]): Fragment[] {
  const lines = groupLines(runs);
  const out: Fragment[] = [];
  for (const line of lines) {
    const rtl = rightToLeft(line);
    line.sort((a, b) => a.x0 - b.x0 || a.y - b.y);
    let cur: Run[] = [];
    let right = -Infinity;
    for (const r of line) {
      const em = Math.max(r.size, cur.length ? cur[cur.length - 1].size : 0);
      if (cur.length && r.x0 - right > SPLIT_EM * em) {
        out.push(makeFragment(cur, rtl));
        cur = [];
      }
      cur.push(r);
      right = Math.max(right, r.x1);
    }
    if (cur.length) out.push(makeFragment(cur, rtl));
  }
  return out;
}

/**
 * Runs whose baselines agree (within a fifth of an em) share a line; a smaller run beside
 * a line, within its height, is its superscript or subscript.
 */
function groupLines(runs: Run[]): Run[][] {
  const sorted = [...runs].sort((a, b) => a.y - b.y || a.x0 - b.x0);
  const lines: { y: number; size: number; runs: Run[] }[] = [];
  const small: Run[] = [];
  for (const r of sorted) {
    let best: (typeof lines)[number] | undefined;
    for (let i = lines.length - 1; i >= 0 && lines[i].y > r.y - 2 * r.size; i--) {
      const l = lines[i];
      if (
        Math.abs(l.y - r.y) <= 0.2 * Math.min(l.size, r.size) &&
        Math.abs(l.size - r.size) < 0.35 * Math.max(l.size, r.size)
      ) {
        best = l;
        break;
      }
    }
    if (best) best.runs.push(r);
    else if (lines.length && r.size < 0.85 * Math.max(...lines.slice(-3).map((l) => l.size))) small.push(r);
    else lines.push({ y: r.y, size: r.size, runs: [r] });
  }
  // Small runs (indices, footnote marks) go to the line they sit within, next to one of its runs.
  for (const r of small) {
    let home: (typeof lines)[number] | undefined;
    for (const l of lines) {
      if (r.size >= 0.85 * l.size) continue;
      const within = r.y <= l.y + 0.45 * l.size && r.y >= l.y - 0.9 * l.size;
      if (within && l.runs.some((o) => r.x0 <= o.x1 + l.size && r.x1 >= o.x0 - l.size)) {
        home = l;
        break;
      }
    }
    if (home) home.runs.push(r);
    else {
      // A line of small print of its own (a footnote, a caption).
      const l = lines.find((o) => Math.abs(o.y - r.y) <= 0.2 * r.size && Math.abs(o.size - r.size) < 0.35 * r.size);
      if (l) l.runs.push(r);
      else lines.push({ y: r.y, size: r.size, runs: [r] });
    }
  }
  return lines.map((l) => l.runs);
}

function makeFragment(runs: Run[], rtl: boolean): Fragment {
  const ordered = rtl ? [...runs].sort((a, b) => b.x1 - a.x1) : runs;
  let text = '';
  let prev: Run | undefined;
  for (const r of ordered) {
    if (prev) {
      const gap = rtl ? prev.x0 - r.x1 : r.x0 - prev.x1;
      const em = Math.min(prev.size, r.size);
      if (gap > 0.12 * em && !/\s$/.test(text) && !/^\s/.test(r.str)) text += ' ';
    }
    text += r.str;
    prev = r;
  }
  text = text.replace(/\s+/g, ' ').trim();
  let chars = 0;
  let bold = 0;
  let italic = 0;
  let mono = 0;
  const bySize = new Map<number, number>();
  let top = Infinity;
  let bottom = -Infinity;
  for (const r of runs) {
    const n = r.str.replace(/\s/g, '').length;
    chars += n;
    if (r.font.bold) bold += n;
    if (r.font.italic) italic += n;
    if (r.font.mono) mono += n;
    const s = Math.round(r.size * 2) / 2;
    bySize.set(s, (bySize.get(s) ?? 0) + n);
    top = Math.min(top, r.y - 0.8 * r.size);
    bottom = Math.max(bottom, r.y + 0.2 * r.size);
  }
  const size = [...bySize].sort((a, b) => b[1] - a[1])[0][0];
  const main = runs.filter((r) => Math.abs(r.size - size) < 0.5 * size);
  const y = (main.length ? main : runs).reduce((s, r) => s + r.y, 0) / (main.length || runs.length);
  return {
    text,
    x0: Math.min(...runs.map((r) => r.x0)),
    x1: Math.max(...runs.map((r) => r.x1)),
    y,
    top,
    bottom,
    size,
    bold: chars ? bold / chars : 0,
    italic: chars ? italic / chars : 0,
    mono: chars ? mono / chars : 0,
    rtl,
    runs,
  };
}

const RTL_LETTERS = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/gu;
const LETTERS = /\p{L}/gu;

/** A line reads right to left when most of its letters are Hebrew, Arabic … (digits and marks have no say). */
function rightToLeft(runs: Run[]): boolean {
  let rtl = 0;
  let all = 0;
  for (const r of runs) {
    rtl += r.str.match(RTL_LETTERS)?.length ?? 0;
    all += r.str.match(LETTERS)?.length ?? 0;
  }
  return rtl * 2 > all;
}
