/**
 * Repeated items for array-of-object fields (the products of a listing page, the rows of a
 * table): from structured data when the page lists entities (JSON-LD ItemList, several
 * Product items), else from the DOM — the largest run of sibling elements with the same
 * shape, each read on its own like a small page.
 */
import type { Element, ParentNode } from '../document/dom.js';
import { absoluteUrl, collapse, elements, findFirst, isElement, textOf } from '../document/dom.js';
import type { Candidate } from './candidate.js';
import { currencyFromText } from './currency.js';
import { describeElement, domNameCandidates } from './sources/dom.js';
import { labelCandidates } from './sources/labels.js';
import { microdataCandidates } from './sources/microdata.js';

/** Candidates grouped by the structured list element or entity they belong to. */
export function structuredGroups(candidates: Candidate[]): Candidate[][] {
  const byItem = new Map<string, Candidate[]>();
  const byEntity = new Map<string, Candidate[]>();
  for (const c of candidates) {
    if (c.kind !== 'json-ld' && c.kind !== 'microdata' && c.kind !== 'rdfa') continue;
    if (c.item) {
      const list = c.item.replace(/\[\d+\]$/, '');
      const key = `${list}|${c.item}`;
      if (!byItem.has(key)) byItem.set(key, []);
      // Keep the path below the list element, so `itemlistelement.item.name` reads as `name`.
      const depth = list.split(':')[1]?.split('.').filter(Boolean).length ?? 0;
      let path = c.path.slice(depth);
      if (path.length > 1 && path[0] === 'item') path = path.slice(1);
      byItem.get(key)!.push({ ...c, path, entityIndex: undefined });
    }
    if (c.entityIndex !== undefined) {
      const key = `${c.kind}:${c.entity ?? ''}|${c.entityIndex}`;
      if (!byEntity.has(key)) byEntity.set(key, []);
      byEntity.get(key)!.push(c);
    }
  }
  const lists = new Map<string, Candidate[][]>();
  for (const [key, group] of byItem) {
    const list = key.split('|')[0];
    if (!lists.has(list)) lists.set(list, []);
    lists.get(list)!.push(group);
  }
  const entityLists = new Map<string, Candidate[][]>();
  for (const [key, group] of byEntity) {
    const type = key.split('|')[0];
    if (!entityLists.has(type)) entityLists.set(type, []);
    entityLists.get(type)!.push(group);
  }
  return (
    [...lists.values(), ...entityLists.values()].filter((g) => g.length >= 2).sort((a, b) => b.length - a.length)[0] ??
    []
  );
}

const PRICE_TEXT =
  /(?:[$€£¥₹₽₩₪฿]|\b[A-Z]{3}\b|zł|kr|Kč)\s?\d[\d.,\s]*\d|\d[\d.,\s]*\d?\s?(?:[$€£¥₹₽₩₪฿]|zł|kr|Kč|\b[A-Z]{3}\b)/;

function signature(el: Element): string {
  const cls = (el.attribs.class ?? '').trim().split(/\s+/)[0] ?? '';
  return `${el.name}.${cls.replace(/\d+/g, '')}`;
}

/** The largest run of same-shaped siblings that carry text and a link or a price. */
export function repeatedElements(root: ParentNode, wantsPrice: boolean): Element[] {
  let best: Element[] = [];
  let bestScore = 0;
  for (const parent of elements(root)) {
    const kids = parent.children.filter(isElement);
    if (kids.length < 3) continue;
    const counts = new Map<string, Element[]>();
    for (const k of kids) {
      const sig = signature(k);
      if (!counts.has(sig)) counts.set(sig, []);
      counts.get(sig)!.push(k);
    }
    for (const [sig, group] of counts) {
      if (group.length < 3 || sig.startsWith('script') || sig.startsWith('option') || sig.startsWith('br')) continue;
      let withText = 0;
      let withLink = 0;
      let withPrice = 0;
      for (const g of group.slice(0, 20)) {
        const t = collapse(textOf(g));
        if (t.length >= 3) withText++;
        if (findFirst(g, (e) => e.name === 'a' && !!e.attribs.href)) withLink++;
        if (PRICE_TEXT.test(t.slice(0, 400))) withPrice++;
      }
      const sample = Math.min(group.length, 20);
      if (withText / sample < 0.7) continue;
      const score = group.length * (1 + withLink / sample) * (wantsPrice ? 0.2 + withPrice / sample : 1);
      if (score > bestScore) {
        bestScore = score;
        best = group;
      }
    }
  }
  return best;
}

/** Candidates read from one repeated element: its markup plus the usual card layout. */
export function itemCandidates(item: Element, baseUrl: string, wanted: string[]): Candidate[] {
  const out: Candidate[] = [];
  const scope = { type: 'root', children: [item] } as unknown as ParentNode;
  microdataCandidates(scope as never, out);
  domNameCandidates(scope as never, wanted, out);
  labelCandidates(scope as never, out);
  let order = 0;
  let heading: string | undefined;
  let link: string | undefined;
  let linkText: string | undefined;
  let image: string | undefined;
  let price: string | undefined;
  for (const el of elements(scope)) {
    order++;
    if (!heading && /^h[1-6]$/.test(el.name)) heading = collapse(textOf(el));
    if (el.name === 'a' && el.attribs.href && !link) {
      link = absoluteUrl(el.attribs.href, baseUrl);
      linkText = collapse(textOf(el)) || el.attribs.title;
    }
    if (el.name === 'img' && !image)
      image = absoluteUrl(
        el.attribs.src && !el.attribs.src.startsWith('data:') ? el.attribs.src : el.attribs['data-src'],
        baseUrl,
      );
  }
  for (const el of elements(scope)) {
    if (price) break;
    for (const c of el.children) {
      if (c.type !== 'text') continue;
      const t = collapse((c as unknown as { data: string }).data);
      if (t.length < 40 && PRICE_TEXT.test(t)) {
        price = t;
        break;
      }
    }
  }
  const push = (name: string, value: string | undefined, confidence: number, raw?: string) => {
    if (value)
      out.push({
        path: [name],
        value,
        kind: 'dom',
        source: `css:${describeElement(item)}`,
        order: order++,
        confidence,
        raw,
      });
  };
  push('name', heading ?? linkText, 0.55);
  push('title', heading ?? linkText, 0.55);
  push('url', link, 0.55);
  push('link', link, 0.55);
  push('image', image, 0.5);
  push('price', price, 0.55, price);
  if (price) push('currency', currencyFromText(price, baseUrl), 0.5);
  return out;
}
