/**
 * Lines in reading order → markdown: lines become paragraphs (by spacing, indentation and
 * style), hyphenation is undone, headings get their level from the document's font sizes
 * and weights (or its outline), list items and tables are written as markdown.
 */
import type { Line, Unit } from './pdf-layout.js';
import type { Cell, Table } from './pdf-tables.js';

type Kind = 'para' | 'heading' | 'item' | 'table';

export interface Block {
  kind: Kind;
  lines: Line[];
  table?: Table;
  page: number;
  level?: number;
  /** A list item's marker as written in markdown ("-", "3.") and its nesting depth. */
  marker?: string;
  depth?: number;
}

/** An entry of the document outline (bookmarks), flattened: its title and depth (0 = top). */
export interface OutlineEntry {
  title: string;
  depth: number;
}

const BULLET = /^[•·▪◦‣∙●○■□►▶➢✓✔❖◆◇–—*-]\s+/u;
/** "3." "3)" "(3)" "b)" "(b)" "(iv)": not "A." or "I." (initials and headings' numbers). */
const ORDERED = /^(\d{1,2}[.)]|\(\d{1,2}\)|\(?[a-z]\)|\([ivx]{1,4}\))\s+/;
const TERMINAL = /[.!?:;。！？]["')\]]?$/;

const median = (xs: number[]) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** The usual baseline-to-baseline distance of lines of each font size, measured on the document. */
export function linePitches(pages: Unit[][]): Map<number, number> {
  const seen = new Map<number, number[]>();
  for (const units of pages) {
    let prev: Line | undefined;
    for (const u of units) {
      if (!('line' in u)) {
        prev = undefined;
        continue;
      }
      const l = u.line;
      if (prev && prev.col === l.col && Math.abs(prev.size - l.size) < 0.5) {
        const d = l.y - prev.y;
        if (d > 0.8 * l.size && d < 3 * l.size) {
          const k = Math.round(l.size);
          const list = seen.get(k);
          if (list) list.push(d);
          else seen.set(k, [d]);
        }
      }
      prev = l;
    }
  }
  // The lower quartile, not the median: in a document of short paragraphs most distances
  // measured are between paragraphs. A size seen only a few times (headings) has too few
  // line pairs to tell; its lines are taken to be set no looser than 1.3 ems apart.
  const out = new Map<number, number>();
  for (const [k, ds] of seen) {
    const q = [...ds].sort((a, b) => a - b)[Math.floor(ds.length / 4)];
    out.set(k, ds.length >= 6 ? q : Math.min(q, 1.3 * k));
  }
  return out;
}

const startsItem = (l: Line) => l.bullet || BULLET.test(l.text) || ORDERED.test(l.text);
/** How far a line starts from its column's starting edge (the right one in right-to-left text). */
const indent = (l: Line) => (l.rtl ? l.col.x1 - l.x1 : l.x0 - l.col.x0);
/** How much room a line leaves before its column's far edge. */
const room = (l: Line) => (l.rtl ? l.x0 - l.col.x0 : l.col.x1 - l.x1);
const indented = (l: Line, em: number) => indent(l) > 0.8 * em;
const centred = (l: Line, em: number) =>
  Math.abs((l.x0 + l.x1) / 2 - (l.col.x0 + l.col.x1) / 2) < em && l.x0 > l.col.x0 + 2 * em;
const boldLine = (l: Line) => l.bold > 0.6;

/**
 * Whether the first line of a column (or page) carries on the paragraph that ended the last
 * one: that paragraph's last line fills its column (a paragraph's own last line seldom
 * does), or it stops mid-sentence and the next line goes on in lower case.
 */
function carriesOn(prev: Line, line: Line): boolean {
  const em = Math.max(prev.size, line.size);
  if (indented(line, em)) return false;
  // (a sentence's end that happens to reach the edge: only when it reaches it exactly)
  if (TERMINAL.test(prev.text)) return room(prev) < 0.3 * em;
  return room(prev) < em || /^\p{Ll}/u.test(line.text) || /\p{L}[-\u2010]$/u.test(prev.text);
}

/** Whether `line` continues the block whose last line is `prev`. */
function continues(block: Block, prev: Line, line: Line, pitches: Map<number, number>): boolean {
  const em = Math.max(prev.size, line.size);
  if (Math.abs(prev.size - line.size) > 0.12 * em) return false;
  if (boldLine(prev) !== boldLine(line) || prev.mono > 0.6 !== line.mono > 0.6) return false;
  // A list marker starts an item, unless a number wrapped to the start of a line mid-sentence.
  if (
    startsItem(line) &&
    (line.bullet ||
      BULLET.test(line.text) ||
      TERMINAL.test(prev.text) ||
      room(prev) > 0.2 * (prev.col.x1 - prev.col.x0))
  )
    return false;
  if (prev.col !== line.col) return block.kind !== 'heading' && carriesOn(prev, line);
  const pitch = line.y - prev.y;
  const usual = pitches.get(Math.round(line.size)) ?? 1.2 * line.size;
  if (pitch <= 0 || pitch > Math.max(usual * 1.25, usual + 0.25 * line.size)) return false;
  const listItem = startsItem(block.lines[0]);
  if (!listItem && indented(line, em) && !indented(prev, em) && !(centred(line, em) && centred(prev, em))) return false;
  // A short line that ends a sentence ends its paragraph.
  const colWidth = prev.col.x1 - prev.col.x0;
  if (TERMINAL.test(prev.text) && colWidth - room(prev) < 0.75 * colWidth && !centred(prev, em) && colWidth > 15 * em)
    return false;
  return true;
}

/** A page's units as blocks: paragraphs (not yet told from headings), list items and tables. */
export function pageBlocks(units: Unit[], page: number, pitches: Map<number, number>): Block[] {
  const blocks: Block[] = [];
  let cur: Block | undefined;
  for (const u of units) {
    if ('table' in u) {
      blocks.push({ kind: 'table', lines: [], table: u.table, page });
      cur = undefined;
      continue;
    }
    const line = u.line;
    if (cur && continues(cur, cur.lines[cur.lines.length - 1], line, pitches)) {
      cur.lines.push(line);
      continue;
    }
    cur = { kind: startsItem(line) ? 'item' : 'para', lines: [line], page };
    blocks.push(cur);
  }
  return blocks;
}

/** The document's body size: the font size most of its characters are set in. */
function bodySize(blocks: Block[]): number {
  const count = new Map<number, number>();
  for (const b of blocks)
    for (const l of b.lines) {
      const k = Math.round(l.size * 2) / 2;
      count.set(k, (count.get(k) ?? 0) + l.text.length);
    }
  return [...count].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 10;
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * Marks headings and gives them levels: a short block set larger than the body, or a
 * short bold line of its own. Levels: the document outline's depth for a heading it lists,
 * otherwise the rank of the heading's style (size, then weight) among all heading styles.
 */
export function markHeadings(blocks: Block[], outline: OutlineEntry[]): void {
  const body = bodySize(blocks);
  const byTitle = new Map(outline.map((o) => [norm(o.title), o.depth]));
  const candidates: Block[] = [];
  blocks.forEach((b, i) => {
    // (A numbered line set as a heading, "4. Entropy", is a heading, not a list item.)
    if (
      (b.kind !== 'para' && (b.kind !== 'item' || b.lines[0].bullet || BULLET.test(b.lines[0].text))) ||
      b.lines.length > 4
    )
      return;
    const text = blockText(b);
    if (!text || text.length > 200 || !/\p{L}|\d/u.test(text)) return;
    const size = median(b.lines.map((l) => l.size));
    const bold = b.lines.every(boldLine);
    const larger = size >= body * 1.15;
    const next = blocks[i + 1];
    const boldAlone =
      bold &&
      size >= body * 0.95 &&
      b.lines.length <= 2 &&
      text.length <= 120 &&
      !/[.,;!]$/.test(text) &&
      !(next && next.kind === 'para' && next.lines.every(boldLine));
    const listed = byTitle.has(norm(text));
    if (larger || boldAlone || (listed && text.length <= 150)) candidates.push(b);
  });
  if (!candidates.length) return;
  const styleKey = (b: Block) =>
    `${Math.round(median(b.lines.map((l) => l.size)) * 2) / 2}:${b.lines.every(boldLine) ? 1 : 0}`;
  const styles = [...new Set(candidates.map(styleKey))].sort((a, b) => {
    const [sa, ba] = a.split(':').map(Number);
    const [sb, bb] = b.split(':').map(Number);
    return sb - sa || bb - ba;
  });
  const outlineTop = outline.length ? Math.min(...outline.map((o) => o.depth)) : 0;
  for (const b of candidates) {
    b.kind = 'heading';
    const depth = byTitle.get(norm(blockText(b)));
    b.level = Math.min(6, depth !== undefined ? depth - outlineTop + 1 : styles.indexOf(styleKey(b)) + 1);
  }
}

/** List items: their markdown marker, and nesting from their indentation. */
export function markLists(blocks: Block[]): void {
  let run: Block[] = [];
  const flush = () => {
    if (!run.length) return;
    // Indentation from the starting edge: the left one, or the right one in right-to-left text.
    const at = (b: Block) => Math.round(b.lines[0].rtl ? -b.lines[0].x1 : b.lines[0].x0);
    const lefts = [...new Set(run.map(at))].sort((a, b) => a - b);
    const em = median(run.map((b) => b.lines[0].size));
    // Indentation steps of about an em or more are nesting levels.
    const levels: number[] = [];
    for (const x of lefts) if (!levels.length || x - levels[levels.length - 1] > 0.8 * em) levels.push(x);
    for (const b of run) {
      const x = at(b);
      let d = 0;
      while (d + 1 < levels.length && x >= levels[d + 1] - 0.8 * em) d++;
      b.depth = Math.min(d, 3);
    }
    run = [];
  };
  for (const b of blocks) {
    if (b.kind !== 'item') {
      if (b.kind !== 'para' || b.lines.length) flush();
      continue;
    }
    const first = b.lines[0];
    const ordered = first.text.match(ORDERED);
    if (first.bullet) b.marker = '-';
    else if (BULLET.test(first.text)) {
      b.marker = '-';
      first.text = first.text.replace(BULLET, '');
    } else if (ordered && /^\d+[.)]$/.test(ordered[1])) {
      b.marker = `${parseInt(ordered[1], 10)}.`;
      first.text = first.text.slice(ordered[0].length);
    } else b.marker = '-';
    run.push(b);
  }
  flush();
}

/**
 * Joins paragraphs cut by a page break: the last block of a page and the first of the
 * next, when the first does not end a sentence and the second does not start one.
 */
export function joinAcrossPages(blocks: Block[]): Block[] {
  const out: Block[] = [];
  for (const b of blocks) {
    const prev = out[out.length - 1];
    if (prev && prev.page !== b.page && b.kind === 'para' && (prev.kind === 'para' || prev.kind === 'item')) {
      const last = prev.lines[prev.lines.length - 1];
      const first = b.lines[0];
      if (
        last &&
        first &&
        Math.abs(last.size - first.size) < 0.5 &&
        boldLine(last) === boldLine(first) &&
        !startsItem(first) &&
        carriesOn(last, first)
      ) {
        prev.lines.push(...b.lines);
        continue;
      }
    }
    out.push(b);
  }
  return out;
}

/**
 * Words of the document, to tell a compound's hyphen from a hyphenated line break. The
 * pieces on either side of a line-end hyphen are left out: they are what is being decided.
 */
function vocabulary(blocks: Block[]): Set<string> {
  const words = new Set<string>();
  for (const b of blocks) {
    let skipFirst = false;
    for (const l of b.lines) {
      const tokens = l.text.toLowerCase().match(/[\p{L}-]+/gu) ?? [];
      const broken = /\p{L}[-\u2010\u00AD]$/u.test(l.text);
      tokens.forEach((w, i) => {
        if ((i === 0 && skipFirst) || (i === tokens.length - 1 && broken)) return;
        words.add(w);
      });
      skipFirst = broken;
    }
  }
  return words;
}

/** A block's lines as one text: a word hyphenated across a line break joined again. */
function blockText(b: Block, words: Set<string> = new Set()): string {
  let text = '';
  for (const l of b.lines) {
    const t = l.text.trim();
    if (!t) continue;
    if (!text) {
      text = t;
      continue;
    }
    const soft = /\u00AD$/.test(text);
    const hyphen = text.match(/(\p{L}+)[-\u2010]$/u);
    const next = t.match(/^(\p{Ll}[\p{L}]*)/u);
    if (soft) text = text.slice(0, -1) + t;
    else if (hyphen && next) text = keepHyphen(hyphen[1], next[1], words) ? text + t : text.slice(0, -1) + t;
    else if (/[\p{L}\d]-$/u.test(text) && /^[\p{Lu}\d]/u.test(t)) text += t;
    // Chinese and Japanese run on without spaces (Korean has them between words).
    else if (/[\u3000-\u9FFF\uF900-\uFAFF]$/.test(text) && /^[\u3000-\u9FFF\uF900-\uFAFF]/.test(t)) text += t;
    else text += ' ' + t;
  }
  return text;
}

/**
 * Whether "a-" at a line's end and "b" on the next line are a compound (keep "a-b") or one
 * word broken in two ("ab"): the document's own words decide; two words it uses on their
 * own make a compound.
 */
function keepHyphen(a: string, b: string, words: Set<string>): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (words.has(`${x}${y}`)) return false;
  if (words.has(`${x}-${y}`)) return true;
  return x.length > 1 && words.has(x) && words.has(y);
}

/** Markdown of the blocks. */
export function toMarkdown(blocks: Block[]): string {
  const words = vocabulary(blocks);
  const parts: string[] = [];
  let prevItem = false;
  for (const b of blocks) {
    let md: string;
    if (b.kind === 'table') md = tableMarkdown(b.table!.rows);
    else {
      const text = blockText(b, words);
      if (!text) continue;
      if (b.kind === 'heading') md = `${'#'.repeat(b.level ?? 1)} ${text}`;
      else if (b.kind === 'item') md = `${'  '.repeat(b.depth ?? 0)}${b.marker ?? '-'} ${text}`;
      else md = escapeStart(text);
    }
    // Items of one list are written on consecutive lines.
    if (b.kind === 'item' && prevItem) parts[parts.length - 1] += `\n${md}`;
    else parts.push(md);
    prevItem = b.kind === 'item';
  }
  return parts.join('\n\n');
}

/** A paragraph must not read as markdown syntax it is not (a heading, a quote, a list). */
function escapeStart(text: string): string {
  return text.replace(/^(#{1,6}\s|>|[+*]\s|-\s)/, '\\$1');
}

const cellMd = (c: Cell) => c.text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|');

/**
 * A GFM table. A spanning cell (which GFM cannot express) keeps its text in its first
 * position; the positions it covers stay empty.
 */
function tableMarkdown(rows: Cell[][]): string {
  const grid = expand(rows);
  const width = Math.max(...grid.map((r) => r.length));
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => r[i] ?? '').join(' | ')} |`;
  const [head, ...body] = grid;
  return [line(head), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
}

/** Rows with spans laid out on the full grid. */
function expand(rows: Cell[][]): string[][] {
  const grid: string[][] = rows.map(() => []);
  rows.forEach((row, r) => {
    let c = 0;
    for (const cell of row) {
      while (grid[r][c] !== undefined) c++;
      for (let dr = 0; dr < cell.rowspan && r + dr < grid.length; dr++)
        for (let dc = 0; dc < cell.colspan; dc++) grid[r + dr][c + dc] = dr === 0 && dc === 0 ? cellMd(cell) : '';
      c += cell.colspan;
    }
  });
  return grid.map((r) => Array.from({ length: r.length }, (_, i) => r[i] ?? ''));
}
