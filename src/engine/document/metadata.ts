import type { Document, Element } from './dom.js';
import { absoluteUrl, collapse, elements, textOf } from './dom.js';
import type { PageSignals } from './page-type.js';

export interface PageMetadata {
  title: string | null;
  description: string | null;
  language: string | null;
  canonical_url: string | null;
  /** All `<meta name|property>` values, first one wins; extraction reads OpenGraph/Twitter from here. */
  meta: Record<string, string>;
}

/**
 * Title, description, language and canonical URL, from one walk over the head and body;
 * `signals` notes on the same walk what tells the page's kind (page-type.ts).
 */
export function extractMetadata(doc: Document, baseUrl: string, signals?: PageSignals): PageMetadata {
  const meta: Record<string, string> = {};
  let title: string | null = null;
  let lang: string | null = null;
  let canonical: string | null = null;
  let h1: string | null = null;
  for (const el of elements(doc)) {
    signals?.see(el);
    switch (el.name) {
      case 'html':
        lang = el.attribs.lang || el.attribs['xml:lang'] || null;
        break;
      case 'title':
        if (title === null && !inSvg(el)) title = collapse(textOf(el)) || null;
        break;
      case 'meta': {
        const key = (
          el.attribs.property ||
          el.attribs.name ||
          el.attribs.itemprop ||
          el.attribs['http-equiv'] ||
          ''
        ).toLowerCase();
        const content = el.attribs.content;
        if (key && content !== undefined && !(key in meta)) meta[key] = collapse(content);
        break;
      }
      case 'link':
        if (!canonical && /(?:^|\s)canonical(?:\s|$)/i.test(el.attribs.rel ?? ''))
          canonical = absoluteUrl(el.attribs.href, baseUrl) ?? null;
        break;
      case 'h1':
        if (h1 === null) h1 = collapse(textOf(el)) || null;
        break;
    }
  }
  return {
    title: title || meta['og:title'] || meta['twitter:title'] || h1,
    description: meta.description || meta['og:description'] || meta['twitter:description'] || null,
    language: lang || meta['content-language'] || meta['og:locale'] || null,
    canonical_url: canonical || (meta['og:url'] ? (absoluteUrl(meta['og:url'], baseUrl) ?? null) : null),
    meta,
  };
}

function inSvg(el: Element): boolean {
  for (let p = el.parent; p; p = p.parent) if ((p as Element).name === 'svg') return true;
  return false;
}
