/**
 * The article's main heading. Readers of the markdown (people, agents) need it as its first
 * line, as Firecrawl, Jina Reader and Crawl4AI give it; but themes often place the h1 in a
 * header box outside the element that scores as the body. It is found before chrome is
 * stripped (that header may be a banner), by agreement with the page's own titles, and put
 * back at the top of the content when the content does not start with it.
 */
import type { AnyNode, Element, ParentNode } from './dom.js';
import { collapse, isElement, removeNode, textOf } from './dom.js';

const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * How well a heading names the page's title: the share of the title's words it holds, when
 * most of its own words are in the title (the title may add the site's name, the heading a
 * kicker); 0 when it does not name it. A logo heading holds the site's name only: a smaller share.
 */
export function titleCoverage(heading: string, titles: string[]): number {
  const h = words(heading);
  if (!h.length || h.join('').length < 4) return 0;
  const hs = new Set(h);
  let best = 0;
  for (const title of titles) {
    const ts = new Set(words(title));
    if (!ts.size) continue;
    let inTitle = 0;
    for (const w of hs) if (ts.has(w)) inTitle++;
    let inHeading = 0;
    for (const w of ts) if (hs.has(w)) inHeading++;
    if (inTitle / hs.size >= 0.75 && inHeading / ts.size >= 0.4) best = Math.max(best, inHeading / ts.size);
  }
  return best;
}

/** Of the page's first h1s (else h2s), the one that best names its title, or undefined. */
export function findHeadline(root: ParentNode, titles: string[]): Element | undefined {
  const hints = titles.filter((t) => t.trim());
  if (!hints.length) return undefined;
  for (const level of ['h1', 'h2']) {
    const stack: AnyNode[] = [...root.children].reverse();
    let seen = 0;
    let best: Element | undefined;
    let bestCoverage = 0;
    while (stack.length && seen < 12) {
      const n = stack.pop()!;
      if (!isElement(n)) continue;
      if (n.name === level) {
        seen++;
        const c = titleCoverage(textOf(n), hints);
        if (c > bestCoverage) [best, bestCoverage] = [n, c];
        continue;
      }
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
    }
    if (best) return best;
  }
  return undefined;
}

const norm = (s: string) => words(s).join(' ');
const HEADING = /^h[1-6]$/;

/**
 * Make `headline` the content's first line, once. A heading of the content with the same text
 * before its first paragraph stands for it (the theme's own article heading); later headings
 * with that text go.
 */
export function placeHeadline(content: ParentNode, headline: Element): void {
  const text = norm(textOf(headline));
  if (!text) return;
  const same: Element[] = [];
  let leading: Element | undefined;
  let beforeBody = true;
  const stack: AnyNode[] = [...content.children].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    if (HEADING.test(n.name)) {
      if (n !== headline && norm(textOf(n)) === text) {
        if (beforeBody && !leading) leading = n;
        else same.push(n);
      }
      continue;
    }
    if (beforeBody && n.name === 'p' && collapse(textOf(n)).length > 80) beforeBody = false;
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  for (const n of same) removeNode(n);
  const keep = leading ?? headline;
  if (keep !== headline) removeNode(headline);
  if (content.children[0] === keep) return;
  removeNode(keep);
  const first = content.children[0];
  keep.parent = content as Element;
  keep.prev = null;
  keep.next = first ?? null;
  if (first) first.prev = keep;
  content.children.unshift(keep);
}
