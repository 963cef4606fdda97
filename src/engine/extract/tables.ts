/**
 * Tables as arrays of objects: when a schema asks for a list of objects whose fields name a
 * table's columns (`{"models":[{"model":"string","price":"number"}]}` over a Model / Price
 * table), each row is one object, each cell coerced by its field's type like any other value
 * (`$19.99`, `1.299,00 €`). Header names meet field names through the field vocabulary
 * (case, accents and punctuation dropped, singular and plural, the vocabulary's synonyms).
 *
 * Headers are read where people write them: the rows of `<thead>`, or leading rows made of
 * `<th>` cells (a cell spanning the whole width is a caption, not a column's name). A table
 * with no header row whose every row starts with a `<th>` is a key/value table: each further
 * column is one object (one object when there is one value column).
 */
import type { Element, ParentNode } from '../document/dom.js';
import { absoluteUrl, collapse, elements, findFirst, isElement, textOf } from '../document/dom.js';
import { norm, type Candidate } from './candidate.js';
import { coerceFor } from './field-values.js';
import type { ScalarType, SchemaNode, SchemaObject } from './schema.js';
import { describeElement } from './sources/dom.js';
import { GENERIC_NAMES, vocabularyFor } from './vocabulary.js';

/** One table read as columns: header texts per column (top row first) and data rows. */
export interface TableGrid {
  table: Element;
  /** Header texts of each column, from the top header row down (spanning cells repeat). */
  headers: string[][];
  /** Data rows: the cell at each column (undefined where the row has none). */
  rows: (Element | undefined)[][];
}

/**
 * A header matched by name containment ("Unit price", "Model name") is trusted less than one
 * that is the name itself: the same 0.85 the DOM collector gives compound class names
 * (match.ts, nameWeight).
 */
const CONTAINED_NAME = 0.85;
/** Tables wider than this are data dumps or layout grids, not a list a schema names. */
const MAX_COLUMNS = 60;
/** Rows read per table: a schema's array is a page's list, not a spreadsheet export. */
const MAX_ROWS = 1000;

const isCell = (e: Element) => e.name === 'td' || e.name === 'th';
const span = (e: Element, name: string) => {
  const n = Number.parseInt(e.attribs[name] ?? '1', 10);
  return Number.isFinite(n) && n > 1 ? Math.min(n, MAX_COLUMNS) : 1;
};

/** The table's own rows (not those of tables nested in its cells), each marked with its section. */
function ownRows(table: Element): { tr: Element; section: string }[] {
  const out: { tr: Element; section: string }[] = [];
  for (const c of table.children) {
    if (!isElement(c)) continue;
    if (c.name === 'tr') out.push({ tr: c, section: 'tbody' });
    else if (c.name === 'thead' || c.name === 'tbody' || c.name === 'tfoot')
      for (const r of c.children) if (isElement(r) && r.name === 'tr') out.push({ tr: r, section: c.name });
  }
  return out;
}

/** Rows laid out on a grid: colspan repeats a cell across columns, rowspan down rows. */
function layOut(rows: Element[]): { cells: (Element | undefined)[][]; width: number } {
  const cells: (Element | undefined)[][] = [];
  const carried = new Map<number, { cell: Element; left: number }>();
  let width = 0;
  for (const tr of rows) {
    const line: (Element | undefined)[] = [];
    let col = 0;
    const place = () => {
      while (carried.has(col)) {
        const c = carried.get(col)!;
        line[col] = c.cell;
        if (--c.left <= 0) carried.delete(col);
        col++;
      }
    };
    for (const cell of tr.children) {
      if (!isElement(cell) || !isCell(cell)) continue;
      place();
      const cs = span(cell, 'colspan');
      const rs = span(cell, 'rowspan');
      for (let k = 0; k < cs && col < MAX_COLUMNS; k++, col++) {
        line[col] = cell;
        if (rs > 1) carried.set(col, { cell, left: rs - 1 });
      }
    }
    place();
    width = Math.max(width, line.length);
    cells.push(line);
  }
  return { cells, width };
}

const cellText = (e: Element | undefined) => (e ? collapse(textOf(e, ' ')) : '');

/** A row whose one cell spans the whole width: a caption or a section title, not data. */
const spansAll = (line: (Element | undefined)[], width: number) =>
  width > 1 && line.length >= width && line.every((c) => c === line[0]);

/** The grid of a table: its header rows (thead, or leading rows of th), else its key column. */
export function readTable(table: Element): TableGrid | undefined {
  const rows = ownRows(table);
  if (!rows.length) return undefined;
  const { cells, width } = layOut(rows.map((r) => r.tr));
  if (width < 1 || width >= MAX_COLUMNS) return undefined;
  const headerLines: (Element | undefined)[][] = [];
  const dataLines: (Element | undefined)[][] = [];
  const hasHead = rows.some((r) => r.section === 'thead');
  let leading = true;
  for (let i = 0; i < rows.length; i++) {
    const line = cells[i];
    const allTh = line.length > 0 && line.every((c) => !c || c.name === 'th');
    const head = hasHead ? rows[i].section === 'thead' : leading && allTh;
    if (!head) leading = false;
    if (rows[i].section === 'tfoot' || spansAll(line, width)) continue;
    (head ? headerLines : dataLines).push(line);
  }
  if (headerLines.length) {
    const headers = Array.from({ length: width }, (_, col) =>
      headerLines.map((l) => cellText(l[col])).filter((t, k, all) => t && all.indexOf(t) === k),
    );
    return { table, headers, rows: dataLines.slice(0, MAX_ROWS) };
  }
  // Key/value: every row starts with a th and holds a value beside it; the columns are items.
  if (width >= 2 && dataLines.every((l) => l[0]?.name === 'th' && l.slice(1).every((c) => c?.name !== 'th'))) {
    const headers = dataLines.map((l) => [cellText(l[0])]);
    const items = Array.from({ length: width - 1 }, (_, k) => dataLines.map((l) => l[k + 1]));
    return { table, headers, rows: items.slice(0, MAX_ROWS) };
  }
  return undefined;
}

const singular = (s: string) => (s.length > 4 ? s.replace(/ies$/, 'y').replace(/(?<!s)s$/, '') : s);

/** How surely a column header names a field (0 = not at all), by the field's vocabulary. */
export function headerWeight(field: string, header: string): number {
  const v = vocabularyFor(field);
  // "Price (USD)", "Weight [kg]": the unit in brackets is no part of the name.
  const whole = norm(header);
  const bare = norm(header.replace(/\([^)]*\)|\[[^\]]*\]/g, ' '));
  let best = 0;
  for (const h of new Set([whole, bare, singular(whole), singular(bare)])) {
    if (!h) continue;
    best = Math.max(best, v.names.get(h) ?? 0);
  }
  if (best || !bare) return best;
  for (const [n, w] of v.names)
    if (n.length >= 3 && w >= 0.9 && !GENERIC_NAMES.has(n) && bare.includes(n))
      best = Math.max(best, w * CONTAINED_NAME);
  return best;
}

/** Fields answered by columns: the surest header for each field, each column used once. */
export function matchColumns(schema: SchemaObject, headers: string[][]): Map<string, number> {
  const pairs: { field: string; col: number; w: number }[] = [];
  for (const [field, type] of Object.entries(schema)) {
    if (typeof type !== 'string') continue;
    headers.forEach((texts, col) => {
      // The header row nearest the data names the column best ("Price" over "Prices 2026").
      const w = Math.max(0, ...texts.map((t, k) => headerWeight(field, t) * (k === texts.length - 1 ? 1 : 0.95)));
      if (w > 0) pairs.push({ field, col, w });
    });
  }
  pairs.sort((a, b) => b.w - a.w || a.col - b.col);
  const out = new Map<string, number>();
  const used = new Set<number>();
  for (const p of pairs) {
    if (out.has(p.field) || used.has(p.col)) continue;
    out.set(p.field, p.col);
    used.add(p.col);
  }
  return out;
}

const emptyOf = (t: SchemaNode) => (Array.isArray(t) ? [] : null);

/** The row's own link or image, for url/link/image fields no column names. */
function rowExtra(field: string, cells: (Element | undefined)[], baseUrl: string): string | undefined {
  const names = vocabularyFor(field).names;
  const wantsLink = names.has('url') || names.has('link') || names.has('href');
  const wantsImage = names.has('image') || names.has('img') || names.has('picture') || names.has('photo');
  if (!wantsLink && !wantsImage) return undefined;
  for (const cell of new Set(cells)) {
    if (!cell) continue;
    const found = findFirst(cell, (e) => (wantsLink ? e.name === 'a' && !!e.attribs.href : e.name === 'img'));
    if (!found) continue;
    const ref = wantsLink ? found.attribs.href : (found.attribs.src ?? found.attribs['data-src']);
    if (ref && !ref.startsWith('data:') && !/^javascript:/i.test(ref)) return absoluteUrl(ref, baseUrl);
  }
  return undefined;
}

export interface TableItems {
  items: Record<string, unknown>[];
  /** Where they came from, as `sources` reports it: `table:table#prices (Model, Price)`. */
  source: string;
  /** Fields answered by a column. */
  matched: number;
}

/** One row (or key/value column) as an object of the schema; cells coerced by their field's type. */
function rowObject(
  schema: SchemaObject,
  grid: TableGrid,
  columns: Map<string, number>,
  cells: (Element | undefined)[],
  baseUrl: string,
  pageUrl: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, type] of Object.entries(schema)) {
    out[field] = emptyOf(type);
    if (typeof type !== 'string') continue;
    const col = columns.get(field);
    if (col === undefined) {
      const extra = type === 'string' ? rowExtra(field, cells, baseUrl) : undefined;
      if (extra) out[field] = extra;
      continue;
    }
    const text = cellText(cells[col]);
    if (!text) continue;
    const header = grid.headers[col][grid.headers[col].length - 1] ?? field;
    const c: Candidate = {
      path: [norm(header)],
      value: text,
      raw: text,
      kind: 'dom',
      source: `table:${describeElement(grid.table)}`,
      confidence: 1,
    };
    const v = coerceFor(c, field, type as ScalarType, pageUrl);
    if (v !== undefined && v !== null && v !== '') out[field] = v;
  }
  return out;
}

const filled = (o: Record<string, unknown>) =>
  Object.values(o).filter((v) => v !== null && !(Array.isArray(v) && !v.length)).length;

/**
 * The rows of the table that best answers an array-of-objects schema: the most fields matched
 * to columns, then the most rows. A table qualifies when its headers name at least two of the
 * schema's scalar fields (or the only one): a single shared word is too weak to read a table by.
 */
export function tableItems(
  root: ParentNode,
  schema: SchemaObject,
  baseUrl: string,
  pageUrl: string,
): TableItems | undefined {
  const scalars = Object.values(schema).filter((t) => typeof t === 'string').length;
  if (!scalars) return undefined;
  const needed = Math.min(2, scalars);
  let best: { grid: TableGrid; columns: Map<string, number> } | undefined;
  for (const table of elements(root)) {
    if (table.name !== 'table') continue;
    const grid = readTable(table);
    if (!grid || !grid.rows.length) continue;
    const columns = matchColumns(schema, grid.headers);
    if (columns.size < needed) continue;
    if (
      !best ||
      columns.size > best.columns.size ||
      (columns.size === best.columns.size && grid.rows.length > best.grid.rows.length)
    )
      best = { grid, columns };
  }
  if (!best) return undefined;
  const { grid, columns } = best;
  const items = grid.rows
    .map((cells) => rowObject(schema, grid, columns, cells, baseUrl, pageUrl))
    .filter((o) => filled(o) > 0);
  if (!items.length) return undefined;
  const named = [...columns.values()]
    .sort((a, b) => a - b)
    .map((col) => grid.headers[col][grid.headers[col].length - 1]);
  return { items, source: `table:${describeElement(grid.table)} (${named.join(', ')})`, matched: columns.size };
}
