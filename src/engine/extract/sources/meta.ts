/**
 * `<meta>` tags: OpenGraph (`og:*`, `product:*`), Twitter cards, and named metas. The path is
 * the property split on ':' so `product:price:amount` matches a field named `price`.
 */
import type { Document } from '../../document/dom.js';
import { elements } from '../../document/dom.js';
import { decodeLeftEntities, norm, type Candidate } from '../candidate.js';

export function metaCandidates(doc: Document, out: Candidate[]): void {
  for (const el of elements(doc)) {
    if (el.name !== 'meta' || el.attribs.itemprop !== undefined) continue;
    const key = el.attribs.property ?? el.attribs.name;
    const content = el.attribs.content;
    if (!key || content === undefined || !content.trim()) continue;
    const parts = key.split(':').map(norm).filter(Boolean);
    // "og:price:amount" → [og, price, amount]: the path without the vocabulary prefix, and
    // with a trailing "amount"/"content" folded into its parent name.
    const vocab = parts.length > 1 ? parts[0] : 'meta';
    let path = parts.length > 1 ? parts.slice(1) : parts;
    if (path.length > 1 && (path[path.length - 1] === 'amount' || path[path.length - 1] === 'content'))
      path = path.slice(0, -1);
    // <meta name="title"> repeats the document title (site name and all): below the h1.
    const confidence = vocab === 'twitter' ? 0.7 : vocab === 'meta' && path[0] === 'title' ? 0.5 : 0.85;
    out.push({
      path,
      value: decodeLeftEntities(content.trim()),
      kind: 'meta',
      source: `meta:${key}`,
      entity: vocab,
      confidence,
    });
  }
}
