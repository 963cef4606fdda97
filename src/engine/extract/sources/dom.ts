/**
 * Elements named like a field: an id, class or data-* attribute containing one of the
 * field's names (`span.product-price`, `#sku`, `data-price="12.99"`). Only names the schema
 * asks for are looked at, so the walk stays cheap on large pages.
 */
import type { AnyNode, Document, Element } from '../../document/dom.js';
import { collapse, elements, HEADING_TAGS } from '../../document/dom.js';
import { classWords, norm, type Candidate } from '../candidate.js';
import { GENERIC_NAMES } from '../vocabulary.js';

const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'path', 'head', 'html', 'body', 'link']);
const MAX_TEXT = 300;

/** `css:span.price` / `css:#sku` — a short, readable selector for `sources`. */
export function describeElement(el: Element): string {
  const id = el.attribs.id ? `#${el.attribs.id}` : '';
  const cls = (el.attribs.class ?? '')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((c) => `.${c}`)
    .join('');
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

const BLOCKS = new Set([
  'div',
  'p',
  'li',
  'ul',
  'ol',
  'dl',
  'dt',
  'dd',
  'br',
  ...HEADING_TAGS,
  'section',
  'article',
  'header',
  'footer',
  'aside',
  'table',
  'tr',
  'td',
  'th',
  'address',
  'figure',
  'figcaption',
  'blockquote',
]);
/** A space standing for a block's edge (a text node of its own, so the cents rule skips it). */
const BLOCK_GAP = { type: 'text', data: ' ', parent: null } as unknown as AnyNode;

/**
 * The element's text with cents set apart in an element of their own read as decimals:
 * "$229<span class=cents>99</span>" is $229.99 and "173<sup>34</sup> Lei" 173.34 Lei, where
 * plain text would say 22999 and 17334. Other text is returned as it is.
 */
export function shownText(el: Element): string {
  const parts: { data: string; parent: unknown }[] = [];
  const stack: AnyNode[] = [...el.children].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'text') parts.push({ data: (n as unknown as { data: string }).data, parent: n.parent });
    else if (n.type === 'tag') {
      // Blocks are lines apart: "Meg James" and "Staff Writer" in two divs are two words.
      const block = BLOCKS.has((n as Element).name);
      if (block) stack.push(BLOCK_GAP);
      for (let i = (n as Element).children.length - 1; i >= 0; i--) stack.push((n as Element).children[i]);
      if (block) stack.push(BLOCK_GAP);
    }
  }
  // Words of neighbouring elements that the page sets apart by style alone ("<span>Meg
  // James</span><span>Staff Writer</span>") run together as "JamesStaff": part them.
  let text = parts.length ? parts[0].data : '';
  for (let i = 1; i < parts.length; i++) {
    const gap =
      parts[i].parent !== parts[i - 1].parent && /\p{Ll}$/u.test(parts[i - 1].data) && /^\p{Lu}/u.test(parts[i].data);
    text += gap ? ` ${parts[i].data}` : parts[i].data;
  }
  if (parts.length < 2 || !/\d/.test(text)) return text;
  for (let i = 1; i < parts.length; i++) {
    if (!/^\s*\d{2}\s*$/.test(parts[i].data)) continue;
    let j = i - 1;
    while (j >= 0 && !parts[j].data.trim()) j--;
    if (j < 0 || parts[j].parent === parts[i].parent) break;
    const before = parts
      .slice(0, i)
      .map((p) => p.data)
      .join('');
    const after = parts
      .slice(i + 1)
      .map((p) => p.data)
      .join('');
    // Whole units right before (no decimals of their own), nothing numeric after.
    if (!/\d\s*$/.test(before) || /[.,]\d{1,2}\s*$/.test(before) || /\d/.test(after)) break;
    // The decimal mark the thousands separator leaves free: "1.299" + "00" → "1.299,00".
    const units = /[\d.,\s]*$/.exec(before.trimEnd())![0];
    const mark = units.includes('.') ? ',' : '.';
    return `${before.trimEnd()}${mark}${parts[i].data.trim()}${after}`;
  }
  return text;
}

/**
 * Whether a class/id token names one of `wanted` as whole words: "product-price__value",
 * "btn_price", "salePrice", "pricenew" — but not "bookmarking" (marki), "cobranded"
 * (brand) or "makeebayfaster" (make). Returns the first such name.
 */
function namedFor(token: string, wanted: readonly string[]): string | undefined {
  const words = classWords(token).map(norm);
  // Styling classes name a colour scheme, not content: "brand_color", "bg-brand", "price-btn".
  const style = words.find((w) => STYLE_WORDS.has(w));
  const forms = new Set(words);
  for (let i = 0; i < words.length; i++) {
    let joined = words[i];
    for (let j = i + 1; j < Math.min(words.length, i + 3); j++) forms.add((joined += words[j]));
  }
  for (const w of wanted) {
    if (style && style !== w) continue;
    if (forms.has(w)) return w;
    if (w.length >= 5 && words.some((x) => x.startsWith(w) || x.endsWith(w))) return w;
  }
  return undefined;
}

const STYLE_WORDS = new Set([
  'color',
  'colour',
  'bg',
  'background',
  'border',
  'font',
  'primary',
  'secondary',
  'accent',
  'fill',
  'theme',
  'gradient',
  'shadow',
  'btn',
  'button',
]);

export function domNameCandidates(doc: Document, wanted: string[], out: Candidate[]): void {
  if (!wanted.length) return;
  const specific = wanted.filter((w) => !GENERIC_NAMES.has(w));
  const judged = new Map<string, boolean>();
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
    for (const [k, v] of Object.entries(a))
      if (
        k.startsWith('data-') &&
        v &&
        v.length <= 40 &&
        /^[A-Za-z][\w-]*$/.test(v) &&
        /test|qa|qualifier|automation|role|type|field|name|component/.test(k)
      )
        hooks += ` ${v}`;
    const names = `${a.id ?? ''} ${a.class ?? ''}${hooks}`.trim();
    if (!names) continue;
    // Class names repeat all over a page: each distinct token is judged once.
    let hit: string | undefined;
    for (const t of names.split(/\s+/)) {
      if (!t) continue;
      let named = judged.get(t);
      if (named === undefined) judged.set(t, (named = namedFor(t, specific) !== undefined));
      if (named) {
        hit = t;
        break;
      }
    }
    if (!hit) continue;
    if (descendantCount(el, 30) >= 30) continue;
    const text = a.content ?? collapse(shownText(el));
    if (!text || text.length > MAX_TEXT) continue;
    out.push({
      path: [norm(hit)],
      value: text,
      kind: 'dom',
      source: `css:${describeElement(el)}`,
      order,
      confidence: 0.5,
      el,
      raw: text,
    });
  }
}
