import type { ParentNode } from './dom.js';
import { absoluteUrl, elements } from './dom.js';

/** Every distinct http(s) link target of the page, absolute, fragment dropped, in document order. */
export function extractLinks(root: ParentNode, baseUrl: string): string[] {
  const seen = new Set<string>();
  for (const el of elements(root)) {
    if ((el.name !== 'a' && el.name !== 'area') || !el.attribs.href) continue;
    const abs = absoluteUrl(el.attribs.href, baseUrl);
    if (!abs || !abs.startsWith('http')) continue;
    const hash = abs.indexOf('#');
    seen.add(hash >= 0 ? abs.slice(0, hash) : abs);
  }
  return [...seen];
}
