/**
 * The article's main heading. Readers of the markdown (people, agents) need it as its first
 * line, as Firecrawl, Jina Reader and Crawl4AI give it; but themes often place the h1 in a
 * header box outside the element that scores as the body. It is found before chrome is
 * stripped (that header may be a banner), by agreement with the page's own titles, and put
 * back at the top of the content when the content does not start with it.
 */
import type { AnyNode, Element, ParentNode } from './dom.js';
import { collapsedLength, isElement, removeNode, textOf } from './dom.js';

const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The word sets of the page's titles, made once per page. */
type TitleWords = Set<string>[];

const titleWords = (titles: string[]): TitleWords => titles.map((t) => new Set(words(t))).filter((ws) => ws.size > 0);

/**
 * How well a heading names the page's title: the share of the title's words it holds, when
 * most of its own words are in the title (the title may add the site's name, the heading a
 * kicker); 0 when it does not name it. A logo heading holds the site's name only: a smaller share.
 */
export function titleCoverage(heading: string, titles: string[]): number {
  return coverage(heading, titleWords(titles));
}

function coverage(heading: string, sets: TitleWords): number {
  const h = words(heading);
  if (!h.length || h.join('').length < 4) return 0;
  const hs = new Set(h);
  let best = 0;
  for (const ts of sets) {
    let inTitle = 0;
    for (const w of hs) if (ts.has(w)) inTitle++;
    let inHeading = 0;
    for (const w of ts) if (hs.has(w)) inHeading++;
    if (inTitle / hs.size >= 0.75 && inHeading / ts.size >= 0.4) best = Math.max(best, inHeading / ts.size);
  }
  return best;
}

/** Headings looked at per level: the headline is among a page's first. */
const MAX_HEADINGS = 12;

/**
 * Of the page's first h1s (else h2s), the one that best names its title, or undefined.
 * `headings`: the page's h1 and h2 elements in document order (collected by the scoring
 * pass, which walks the page anyway: main-content.ts).
 */
export function findHeadline(headings: Element[], titles: string[]): Element | undefined {
  const sets = titleWords(titles);
  if (!sets.length) return undefined;
  for (const level of ['h1', 'h2']) {
    let best: Element | undefined;
    let bestCoverage = 0;
    let seen = 0;
    for (const h of headings) {
      if (h.name !== level || ++seen > MAX_HEADINGS) continue;
      const c = coverage(textOf(h), sets);
      if (c > bestCoverage) [best, bestCoverage] = [h, c];
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
  const raw = textOf(headline);
  const text = norm(raw);
  if (!text) return;
  // Only headings of about the headline's length can have its text (most are not compared).
  const sameText = (n: Element) => {
    const t = textOf(n);
    return t.length >= text.length && t.length <= raw.length * 2 + 16 && norm(t) === text;
  };
  const same: Element[] = [];
  let leading: Element | undefined;
  let beforeBody = true;
  const stack: AnyNode[] = [...content.children].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    if (HEADING.test(n.name)) {
      if (n !== headline && sameText(n)) {
        if (beforeBody && !leading) leading = n;
        else same.push(n);
      }
      continue;
    }
    if (beforeBody && n.name === 'p' && collapsedLength(textOf(n)) > 80) beforeBody = false;
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
