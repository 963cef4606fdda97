/** Small DOM lookups the marketplace readers share (one walk builds the id index). */
import {
  attr,
  collapse,
  elements,
  findAll,
  findFirst,
  textOf,
  type Document,
  type Element,
  type ParentNode,
} from '../document/dom.js';
import { parseNumber } from '../extract/coerce.js';

export type Ids = Map<string, Element>;

/** Every element with an id, first one wins (pages repeat ids). */
export function indexIds(doc: Document): Ids {
  const ids: Ids = new Map();
  for (const el of elements(doc)) {
    const id = el.attribs.id;
    if (id && !ids.has(id)) ids.set(id, el);
  }
  return ids;
}

export const hasClass = (el: Element, cls: string) => (' ' + (el.attribs.class ?? '') + ' ').includes(` ${cls} `);
export const text = (el: Element | undefined) => (el ? collapse(textOf(el, ' ')) : '');
export const first = (root: ParentNode | undefined, pred: (el: Element) => boolean) =>
  root ? findFirst(root, pred) : undefined;
export const all = (root: ParentNode | undefined, pred: (el: Element) => boolean) => (root ? findAll(root, pred) : []);
export { attr };

/**
 * A price in a region's format: "1.299,00 €" with a comma decimal, "$1,299.00" with a dot.
 * The region decides only what the text leaves ambiguous (one separator and three digits).
 */
export function parsePrice(raw: string | undefined, decimal: '.' | ','): number | undefined {
  if (!raw) return undefined;
  const m = /\d[\d\s.,'\u00a0\u202f]*/.exec(raw);
  if (!m) return undefined;
  const s = m[0].replace(/[\s\u00a0\u202f']/g, '').replace(/[.,]+$/, '');
  const seps = s.replace(/\d/g, '');
  if (seps.length === 1 && /^\d{1,3}[.,]\d{3}$/.test(s)) {
    // "1.299" / "1,299": a thousands separator unless it is the region's decimal.
    return s.includes(decimal) ? Number(s.replace(decimal, '.')) : Number(s.replace(/[.,]/, ''));
  }
  return parseNumber(s);
}

/** Label → value rows of spec tables and "Label : value" bullet lists. */
export function labelRows(root: ParentNode | undefined): [string, string][] {
  const rows: [string, string][] = [];
  for (const tr of all(root, (e) => e.name === 'tr')) {
    const th = first(tr, (e) => e.name === 'th') ?? first(tr, (e) => e.name === 'td');
    const tds = all(tr, (e) => e.name === 'td');
    const td = th?.name === 'td' ? tds[1] : tds[0];
    if (th && td) rows.push([clean(text(th)), clean(text(td))]);
  }
  for (const li of all(root, (e) => e.name === 'li')) {
    const t = clean(text(li));
    const m = /^([^:]{2,60}?)\s*[:：]\s*(.+)$/.exec(t);
    if (m) rows.push([m[1], m[2]]);
  }
  return rows.filter(([k, v]) => k && v);
}

/** Invisible marks Amazon puts around labels (‏ ‎) and trailing colons. */
export const clean = (s: string) =>
  s
    .replace(/[\u200b-\u200f\u202a-\u202e\u2060\ufeff]/g, '')
    .replace(/\s*[:：]\s*$/, '')
    .trim();
