/**
 * Elements named like a field: an id, class or data-* attribute containing one of the
 * field's names (`span.product-price`, `#sku`, `data-price="12.99"`). Only names the schema
 * asks for are looked at, so the walk stays cheap on large pages.
 */
import type { Document, Element } from '../../document/dom.js';
import { collapse, elements, textOf } from '../../document/dom.js';
import { norm, type Candidate } from '../candidate.js';
import { GENERIC_NAMES } from '../vocabulary.js';

const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'path', 'head', 'html', 'body', 'link']);
const MAX_TEXT = 300;

/** `css:span.price` / `css:#sku` — a short, readable selector for `sources`. */
export function describeElement(el: Element): string {
  const id = el.attribs.id ? `#${el.attribs.id}` : '';
  const cls = (el.attribs.class ?? '').trim().split(/\s+/).filter(Boolean).slice(0, 2).map((c) => `.${c}`).join('');
  return `${el.name}${id || cls}`;
}

function descendantCount(el: Element, cap: number): number {
  let n = 0;
  const stack = [...el.children];
  while (stack.length && n < cap) {
    const c = stack.pop()!;
    if (c.type === 'tag') {
      n++;
      stack.push(...(c as Element).children);
    }
  }
  return n;
}

/**
 * Whether a class/id token names `wanted` as whole words: "product-price__value",
 * "btn_price", "salePrice", "pricenew" — but not "bookmarking" (marki), "cobranded"
 * (brand) or "makeebayfaster" (make).
 */
export function namedFor(token: string, wanted: string): boolean {
  const words = token.split(/[^\p{L}\p{N}]+|(?<=\p{Ll})(?=\p{Lu})/u).filter(Boolean).map(norm);
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === wanted || (wanted.length >= 5 && (w.startsWith(wanted) || w.endsWith(wanted)))) return true;
    let joined = w;
    for (let j = i + 1; j < Math.min(words.length, i + 3) && joined.length < wanted.length; j++) {
      joined += words[j];
      if (joined === wanted) return true;
    }
  }
  return false;
}

export function domNameCandidates(doc: Document, wanted: string[], out: Candidate[]): void {
  if (!wanted.length) return;
  let order = 0;
  for (const el of elements(doc)) {
    order++;
    if (SKIP.has(el.name)) continue;
    const a = el.attribs;
    // data-* attribute whose own name matches: its value is the answer (data-price="12.99").
    for (const [k, v] of Object.entries(a)) {
      if (!k.startsWith('data-') || !v || v.length > MAX_TEXT) continue;
      // Match whole dash-separated tails: data-product-id → "productid", never "shopid" → "pid".
      const parts = k.slice(5).split(/[-_]/).map(norm);
      const tails = parts.map((_, i) => parts.slice(i).join(''));
      const hit = wanted.find((w) => !GENERIC_NAMES.has(w) && tails.includes(w));
      const n = tails[0];
      if (hit) out.push({ path: [n], value: v, kind: 'dom', source: `css:[${k}]`, order, confidence: 0.6, el });
    }
    // Test hooks name things too: data-qa-qualifier="product-reference", data-testid="price".
    let hooks = '';
    for (const [k, v] of Object.entries(a)) if (k.startsWith('data-') && v && v.length <= 40 && /^[A-Za-z][\w-]*$/.test(v) && /test|qa|qualifier|automation|role|type|field|name|component/.test(k)) hooks += ` ${v}`;
    const names = `${a.id ?? ''} ${a.class ?? ''}${hooks}`.trim();
    if (!names) continue;
    const hit = names.split(/\s+/).find((t) => t && wanted.some((w) => !GENERIC_NAMES.has(w) && namedFor(t, w)));
    if (!hit) continue;
    if (descendantCount(el, 30) >= 30) continue;
    const text = a.content ?? collapse(textOf(el));
    if (!text || text.length > MAX_TEXT) continue;
    out.push({ path: [norm(hit)], value: text, kind: 'dom', source: `css:${describeElement(el)}`, order, confidence: 0.5, el, raw: text });
  }
}
