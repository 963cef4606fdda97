/**
 * Microdata (itemscope/itemtype/itemprop) and RDFa Lite (vocab/typeof/property) in one walk:
 * nested items extend the path (`offers.price`), values are read the way the specs say
 * (content, href, src, datetime, then text).
 */
import type { AnyNode, Document, Element } from '../../document/dom.js';
import { collapse, isElement, textOf } from '../../document/dom.js';
import { visibleTextOf } from '../../document/visibility.js';
import { norm, type Candidate } from '../candidate.js';

interface Scope {
  path: string[];
  entity?: string;
  index: number;
  kind: 'microdata' | 'rdfa';
}

/** Properties that are words, never links, whatever element carries them. */
const TEXT_PROPS = /^(?:name|headline|alternativeheadline|title|description|author|brand|creator|publisher)$/;

/** Properties that are codes: written for people, they keep the page's punctuation. */
const CODE_PROPS = /^(?:sku|mpn|productid|productcode|identifier|model)$/;

function itemValue(el: Element, prop?: string): string | undefined {
  const a = el.attribs;
  if (a.content !== undefined) {
    // `<span itemprop="sku" content="4667999">466/7999</span>`: the code as the page shows it
    // (and as the shop's own search takes it), when it is the same letters and digits.
    if (el.name !== 'meta' && prop && CODE_PROPS.test(prop)) {
      const shown = collapse(textOf(el));
      if (shown && shown !== a.content && shown.length <= 64 && alnum(shown) === alnum(a.content) && alnum(shown))
        return shown;
    }
    return a.content;
  }
  switch (el.name) {
    case 'meta':
      return a.content;
    case 'a':
    case 'link':
    case 'area': {
      // `<a itemprop="name" href="/post/">Title</a>`: a text property means the text.
      const text = el.name === 'a' && prop && TEXT_PROPS.test(prop) ? collapse(visibleTextOf(el)) : '';
      return text || a.href;
    }
    case 'img':
    case 'audio':
    case 'video':
    case 'source':
    case 'iframe':
    case 'embed':
    case 'track':
      return a.src ?? a['data-src'];
    case 'object':
      return a.data;
    case 'data':
    case 'meter':
      return a.value;
    case 'time':
      return a.datetime ?? collapse(textOf(el));
    case 'abbr':
      // Blogs' `<abbr itemprop="datePublished" title="2016-05-08T00:55:00-07:00">12:55 AM</abbr>`.
      if (a.title && /^\d{4}-\d{2}-\d{2}/.test(a.title)) return a.title;
  }
  // What the page shows: eBay's `<h1 itemprop=name><span class=g-hdn>Details about</span>…`.
  const t = collapse(visibleTextOf(el));
  return t.length <= 2000 ? t : t.slice(0, 2000);
}

const alnum = (s: string) => s.replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();

const typeName = (t: string | undefined) =>
  t
    ? norm(
        t
          .trim()
          .split(/\s+/)[0]
          .replace(/.*[/#]/, ''),
      )
    : undefined;

export function microdataCandidates(doc: Document, out: Candidate[]): void {
  let entities = 0;
  let order = 0;
  const visit = (node: AnyNode, scope: Scope | undefined, depth: number) => {
    if (depth > 300 || !isElement(node)) return;
    const a = node.attribs;
    order++;
    let next = scope;
    const md = a.itemprop !== undefined || a.itemscope !== undefined;
    // `property` on <meta> with a colon (og:title) is OpenGraph, read by the meta collector.
    const rdfaProp =
      a.property !== undefined && !(node.name === 'meta' && a.property.includes(':')) ? a.property : undefined;
    const props = (a.itemprop ?? rdfaProp ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((p) => norm(p.replace(/.*[/#:]/, '')));
    const startsItem = a.itemscope !== undefined || a.typeof !== undefined;
    if (startsItem) {
      const kind: Scope['kind'] = a.itemscope !== undefined ? 'microdata' : 'rdfa';
      const entity = typeName(a.itemtype ?? a.typeof) ?? scope?.entity;
      const base = props.length && scope ? [...scope.path, props[0]] : [];
      next = { path: base, entity, index: props.length && scope ? scope.index : entities++, kind };
    } else if (props.length && scope) {
      const v = itemValue(node, props[0]);
      if (v !== undefined && v !== '') {
        for (const p of props) {
          const path = [...scope.path, p];
          out.push({
            path,
            value: v.trim(),
            kind: scope.kind,
            source: `${scope.kind}:${path.join('.')}`,
            entity: scope.entity,
            entityIndex: scope.index,
            order,
            confidence: 0.95,
            el: node,
          });
        }
      }
    } else if (props.length && md) {
      // itemprop outside any itemscope: still a named value, trusted a little less.
      const v = itemValue(node, props[0]);
      if (v)
        for (const p of props)
          out.push({
            path: [p],
            value: v.trim(),
            kind: 'microdata',
            source: `microdata:${p}`,
            order,
            confidence: 0.8,
            el: node,
          });
    }
    for (const c of node.children) visit(c, next, depth + 1);
  };
  for (const c of doc.children) visit(c, undefined, 0);
}
