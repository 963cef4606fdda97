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
/** Nodes looked at per item: a teaser is small (a shop tile with a gallery and colour swatches is ~100). */
const MAX_ITEM_NODES = 160;

interface ItemShape {
  teaser: boolean;
  href?: string;
}

/** Whether `item` is a teaser, and the page it points to. */
function itemShape(item: Element): ItemShape {
  const walk: Walk = { nodes: 0, text: 0, headlineHref: undefined, imageLink: false, titleLink: undefined };
  if (!visit(item, undefined, false, walk)) return NOT_TEASER;
  if (walk.headlineHref) return { teaser: true, href: walk.headlineHref };
  if (walk.imageLink && walk.titleLink) return { teaser: true, href: walk.titleLink };
  return NOT_TEASER;
}

const NOT_TEASER: ItemShape = { teaser: false };

interface Walk {
  nodes: number;
  text: number;
  headlineHref: string | undefined;
  imageLink: boolean;
  titleLink: string | undefined;
}

/** Depth-first over an item in document order; false as soon as it is too big to be a teaser. */
function visit(n: AnyNode, inLink: Element | undefined, inHeading: boolean, w: Walk): boolean {
  // (Blank text is the markup's indentation: a pretty-printed teaser is no bigger.)
  if (isTextNode(n)) {
    const len = n.data.trim().length;
    if (len && ++w.nodes > MAX_ITEM_NODES) return false;
    w.text += len;
    if (w.text > MAX_ITEM_TEXT) return false;
    if (len >= 10 && inLink && inHeading) w.headlineHref ??= inLink.attribs.href;
    if (len >= 20 && inLink && !inHeading) w.titleLink ??= inLink.attribs.href;
    return true;
  }
  if (!isElement(n)) return true;
  if (++w.nodes > MAX_ITEM_NODES) return false;
  if (n.name === 'img' && inLink) w.imageLink = true;
  const link = n.name === 'a' && n.attribs.href && !n.attribs.href.startsWith('#') ? n : inLink;
  const heading = inHeading || HEADING.test(n.name);
  for (const c of n.children) if (!visit(c, link, heading, w)) return false;
  return true;
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
  // At most a third of the items may be something else: stop at the first one too many.
  let othersLeft = count - Math.ceil((count * 2) / 3);
  for (const item of el.children) {
    if (!isElement(item)) continue;
    const shape = itemShape(item);
    if (!shape.teaser) {
      if (--othersLeft < 0) return false;
      continue;
    }
    teasers++;
    hrefs.add(shape.href!);
  }
  return teasers >= 3 && teasers * 3 >= count * 2 && hrefs.size >= Math.min(teasers, 3);
}
