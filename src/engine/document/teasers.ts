/**
 * Lists of teasers: three or more sibling items of one kind, each a link to another page set
 * as a headline (a linked heading, a heading inside a link, or a linked picture beside a
 * linked title), with at most a short summary. Every summary reads as a sentence, so by
 * text alone such a list looks like content; by structure it is a list of other pages.
 */
import type { AnyNode, Element } from './dom.js';
import { isElement, isTextNode } from './dom.js';

const HEADING = /^h[1-6]$/;
/** An item with more text than this is an article section, not a teaser. */
const MAX_ITEM_TEXT = 600;
/** Nodes looked at per item: a teaser is small. */
const MAX_ITEM_NODES = 80;

interface ItemShape {
  teaser: boolean;
  href?: string;
}

/** Whether `item` is a teaser, and the page it points to. */
function itemShape(item: Element): ItemShape {
  let nodes = 0;
  let text = 0;
  let headlineHref: string | undefined;
  let imageLink = false;
  let titleLink: string | undefined;
  const stack: { n: AnyNode; inLink?: Element; inHeading: boolean }[] = [{ n: item, inHeading: false }];
  while (stack.length) {
    const { n, inLink, inHeading } = stack.pop()!;
    if (++nodes > MAX_ITEM_NODES) return { teaser: false };
    if (isTextNode(n)) {
      const len = n.data.trim().length;
      text += len;
      if (text > MAX_ITEM_TEXT) return { teaser: false };
      if (len >= 10 && inLink && inHeading) headlineHref ??= inLink.attribs.href;
      if (len >= 20 && inLink && !inHeading) titleLink ??= inLink.attribs.href;
      continue;
    }
    if (!isElement(n)) continue;
    if (n.name === 'img' && inLink) imageLink = true;
    const link = n.name === 'a' && n.attribs.href && !n.attribs.href.startsWith('#') ? n : inLink;
    const heading = inHeading || HEADING.test(n.name);
    for (let i = n.children.length - 1; i >= 0; i--) stack.push({ n: n.children[i], inLink: link, inHeading: heading });
  }
  if (headlineHref) return { teaser: true, href: headlineHref };
  if (imageLink && titleLink) return { teaser: true, href: titleLink };
  return { teaser: false };
}

/** Whether `el`'s element children are three or more teasers of one kind, to distinct pages. */
export function isTeaserList(el: Element): boolean {
  // Three or more element children of one tag, checked before anything is allocated (this
  // runs on every element with three children or more).
  let tag: string | undefined;
  let count = 0;
  for (const c of el.children) {
    if (!isElement(c)) continue;
    if (tag === undefined) tag = c.name;
    else if (c.name !== tag) return false;
    count++;
  }
  if (count < 3) return false;
  const hrefs = new Set<string>();
  let teasers = 0;
  for (const item of el.children) {
    if (!isElement(item)) continue;
    const shape = itemShape(item);
    if (!shape.teaser) continue;
    teasers++;
    hrefs.add(shape.href!);
  }
  return teasers >= 3 && teasers * 3 >= count * 2 && hrefs.size >= Math.min(teasers, 3);
}
