/**
 * Deterministic extraction: gather candidate values from the page's structured data and
 * text, match them to the schema's field names (normalised names + synonyms), coerce to
 * the declared types, and record where each value came from. The first version reads
 * JSON-LD, meta tags, itemprop and "Label: value" text; the extraction issue widens it.
 */
import type { Document } from '../document/dom.js';
import { collapse, elements, textOf } from '../document/dom.js';
import { coerce } from './coerce.js';
import type { CompiledSchema, SchemaNode, SchemaObject } from './schema.js';

export interface ExtractInput {
  schema: CompiledSchema;
  url: string;
  /** Plain text to read "Label: value" lines from (text and PDF pages). */
  text?: string;
}

export interface ExtractOutput {
  json: Record<string, unknown>;
  sources: Record<string, string>;
}

interface Candidate {
  /** Normalised key of the value (last path segment). */
  key: string;
  value: unknown;
  source: string;
  /** Lower is better. */
  rank: number;
}

const SYNONYMS: Record<string, string[]> = {
  title: ['name', 'headline', 'ogtitle', 'twittertitle', 'title'],
  name: ['name', 'headline', 'ogtitle', 'title'],
  price: ['price', 'lowprice', 'saleprice', 'amount', 'currentprice', 'productpriceamount', 'ogpriceamount', 'pricevalue'],
  currency: ['pricecurrency', 'currency', 'productpricecurrency', 'ogpricecurrency', 'currencycode'],
  instock: ['availability', 'instock', 'stock', 'productavailability', 'ogavailability', 'stockstatus'],
  availability: ['availability', 'instock', 'stockstatus'],
  description: ['description', 'ogdescription', 'twitterdescription', 'articlebody'],
  image: ['image', 'ogimage', 'twitterimage', 'contenturl', 'thumbnailurl'],
  brand: ['brand', 'manufacturer', 'productbrand', 'ogbrand'],
  sku: ['sku', 'productid', 'mpn', 'itemid', 'productsku'],
  author: ['author', 'creator', 'articleauthor', 'byline'],
  date: ['datepublished', 'publishedtime', 'articlepublishedtime', 'datecreated', 'date'],
  rating: ['ratingvalue', 'rating', 'aggregaterating'],
  reviewcount: ['reviewcount', 'ratingcount'],
  url: ['url', 'ogurl', 'canonical'],
};

export const normaliseName = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

export function extractFromDocument(doc: Document, input: ExtractInput): ExtractOutput {
  const candidates = collectCandidates(doc, input.text);
  const sources: Record<string, string> = {};
  const json = fill(input.schema.schema, candidates, sources, '');
  if (!input.schema.validate(json)) {
    // Coercion guarantees types; a failure here is a bug, so fall back to the empty shape.
    return { json: input.schema.empty(), sources: {} };
  }
  return { json, sources };
}

function fill(schema: SchemaObject, candidates: Candidate[], sources: Record<string, string>, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, type] of Object.entries(schema)) {
    out[field] = valueFor(field, type, candidates, sources, prefix + field);
  }
  return out;
}

function valueFor(field: string, type: SchemaNode, candidates: Candidate[], sources: Record<string, string>, path: string): unknown {
  if (Array.isArray(type)) {
    if (typeof type[0] !== 'string') return [];
    const found = matching(field, candidates);
    const values: unknown[] = [];
    for (const c of found) {
      for (const item of Array.isArray(c.value) ? c.value : [c.value]) {
        const v = coerce(item, type[0]);
        if (v !== undefined && !values.includes(v)) values.push(v);
      }
      if (values.length) {
        sources[path] = c.source;
        break;
      }
    }
    return values;
  }
  if (typeof type === 'object') return fill(type, candidates, sources, `${path}.`);
  for (const c of matching(field, candidates)) {
    const raw = Array.isArray(c.value) ? c.value[0] : c.value;
    const v = coerce(raw, type);
    if (v !== undefined) {
      sources[path] = c.source;
      return v;
    }
  }
  return null;
}

function matching(field: string, candidates: Candidate[]): Candidate[] {
  const n = normaliseName(field);
  const names = new Set([n, ...(SYNONYMS[n] ?? []), ...(SYNONYMS[n.replace(/^(is|has)/, '')] ?? [])]);
  return candidates.filter((c) => names.has(c.key)).sort((a, b) => a.rank - b.rank);
}

const LABEL_HOSTS = new Set(['p', 'li', 'div', 'span', 'td', 'dd']);

function collectCandidates(doc: Document, text?: string): Candidate[] {
  const out: Candidate[] = [];
  for (const el of elements(doc)) {
    if (el.name === 'script' && /ld\+json/i.test(el.attribs.type ?? '')) {
      try {
        walkJson(JSON.parse(textOf(el).trim()), [], out);
      } catch {
        // Malformed JSON-LD is common; the other sources still answer.
      }
    } else if (el.name === 'meta' && el.attribs.content) {
      const key = el.attribs.property || el.attribs.name || el.attribs.itemprop;
      if (key) out.push({ key: normaliseName(key), value: el.attribs.content, source: `meta:${key}`, rank: 2 });
      if (el.attribs.itemprop) out.push({ key: normaliseName(el.attribs.itemprop), value: el.attribs.content, source: `microdata:${el.attribs.itemprop}`, rank: 1 });
    } else if (el.attribs.itemprop && el.name !== 'meta') {
      const v = el.attribs.content ?? el.attribs.href ?? el.attribs.src ?? collapse(textOf(el));
      if (v) out.push({ key: normaliseName(el.attribs.itemprop), value: v, source: `microdata:${el.attribs.itemprop}`, rank: 1 });
    } else if (el.name === 'title') {
      out.push({ key: 'title', value: collapse(textOf(el)), source: 'html:title', rank: 3 });
    } else if (el.name === 'h1') {
      out.push({ key: 'title', value: collapse(textOf(el)), source: 'css:h1', rank: 3 });
    } else if ((el.name === 'dt' || el.name === 'th') && el.next) {
      // dt/dd and th/td pairs: the label names the value beside it.
      let sib = el.next;
      while (sib && sib.type !== 'tag') sib = sib.next as typeof sib;
      if (sib && sib.type === 'tag' && ((el.name === 'dt' && (sib as typeof el).name === 'dd') || (el.name === 'th' && (sib as typeof el).name === 'td'))) {
        const label = collapse(textOf(el)).replace(/:$/, '');
        if (label && label.length <= 60) out.push({ key: normaliseName(label), value: collapse(textOf(sib)), source: `css:${el.name}`, rank: 3 });
      }
    } else if (LABEL_HOSTS.has(el.name)) {
      const t = collapse(textOf(el));
      const m = t.length <= 200 ? /^([\p{L}][\p{L}\p{N} ]{0,40}?)\s*:\s*(.+)$/u.exec(t) : null;
      if (m) out.push({ key: normaliseName(m[1]), value: m[2], source: `text:${m[1]}`, rank: 4 });
    }
  }
  const body = text ?? '';
  for (const m of body.matchAll(/^[ \t]*([A-Za-z][\w ]{0,40}?)[ \t]*:[ \t]*(.+)$/gm)) {
    out.push({ key: normaliseName(m[1]), value: m[2].trim(), source: `text:${m[1].trim()}`, rank: 4 });
  }
  return out;
}

function walkJson(v: unknown, path: string[], out: Candidate[], depth = 0): void {
  if (depth > 12 || v === null || v === undefined) return;
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x !== 'object' || x === null) && path.length) {
      out.push({ key: normaliseName(path[path.length - 1]), value: v, source: `json-ld:${path.join('.')}`, rank: 0 });
      return;
    }
    for (const x of v) walkJson(x, path, out, depth + 1);
    return;
  }
  if (typeof v === 'object') {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (k === '@context') continue;
      if (k === '@graph') walkJson(x, path, out, depth + 1);
      else if (k === 'brand' && typeof x === 'object' && x && 'name' in x) out.push({ key: 'brand', value: (x as { name: unknown }).name, source: `json-ld:${[...path, 'brand', 'name'].join('.')}`, rank: 0 });
      else walkJson(x, [...path, k], out, depth + 1);
    }
    return;
  }
  if (path.length) out.push({ key: normaliseName(path[path.length - 1]), value: v, source: `json-ld:${path.join('.')}`, rank: 0 });
}
