/**
 * Item grids. On a page that lists things — products of a category, stories of a section,
 * courses of a catalogue — the items are the content, though each is only a name, a price
 * and a link: by text alone the pick is the grid's short introduction. When the page says it
 * is no article and a list of teasers (teasers.ts) left after chrome holds more text than the
 * pick, the content reaches the lists: the nearest box holding the pick and the largest list,
 * or the lists alone when that box is mostly something else. The lists are kept whole
 * (pruning would take them for link lists). Lists of stories, each with a summary, count
 * only beside a pick that is an introduction: beside an article they are other articles.
 */
import type { AnyNode, Element, ParentNode } from './dom.js';
import { isElement } from './dom.js';
import { isPricedList } from './page-type.js';

/** Characters of a node's text outside and inside links, from the selection's numbers. */
export type TextOf = (n: AnyNode) => { text: number; link: number };

export interface ItemsPick {
  /** The content: the box holding the pick and the lists. */
  box: ParentNode;
  /** The lists inside it, spared by pruning. */
  lists: Element[];
}

/**
 * A grid's introduction is a paragraph or two; a pick with more is an article, and lists of
 * stories beside it are other stories, not its content.
 */
const INTRO_PARAS = 2;
/** An item with this much text outside its links, on average, carries a summary (a story's teaser). */
const SUMMARY = 40;

/** The box may hold this much besides the pick and the lists (a heading, filters, a pager). */
const SLACK = 1.5;

/** Teaser lists still in the tree under `root` (stripChrome removed those in page chrome). */
function liveLists(lists: Iterable<AnyNode>, root: ParentNode): Element[] {
  const out: Element[] = [];
  for (const l of lists) {
    let n: AnyNode | null = l;
    while (n && n !== root) n = n.parent;
    if (n === root) out.push(l as Element);
  }
  return out;
}

/**
 * The content widened to the page's item lists, or undefined when the page has none worth
 * more than its pick. `lists`: the teaser lists the scoring pass found; `paras`: sentence-like
 * blocks in the pick outside them.
 */
export function withItems(
  best: ParentNode,
  root: ParentNode,
  lists: Iterable<AnyNode>,
  textOf: TextOf,
  paras: number,
): ItemsPick | undefined {
  const size = (n: AnyNode) => textOf(n).text + textOf(n).link;
  const items = (l: Element) => l.children.filter(isElement).length;
  // Items most of which show a price are things for sale, however much each says of itself
  // (ratings, specs, shipping): never other stories.
  const ofThings = (l: Element) => textOf(l).text < SUMMARY * items(l) || isPricedList(l);
  // Nested lists (a list of sections, each a list) count once: the outer one.
  const live = liveLists(lists, root).filter(
    (l) => !contains(l, best as AnyNode) && (paras <= INTRO_PARAS || ofThings(l)),
  );
  const outer = live.filter((l) => !live.some((o) => o !== l && contains(o, l)));
  if (!outer.length) return undefined;
  const within = (b: ParentNode) => outer.filter((l) => contains(b as AnyNode, l));
  const inside = within(best);
  const pick = size(best as AnyNode);
  const away = outer.filter((l) => !inside.includes(l));
  const largest = away.length ? away.reduce((a, b) => (size(b) > size(a) ? b : a)) : undefined;
  // (Things for sale are the page's content even beside a longer text: a buying guide, an FAQ.)
  if (!largest || (size(largest) <= pick && !isPricedList(largest)))
    return inside.length ? { box: best, lists: inside } : undefined;
  let box: ParentNode | null = largest.parent;
  while (box && box !== root && !contains(box as AnyNode, best as AnyNode)) box = box.parent;
  if (box) {
    const held = within(box);
    const listed = held.reduce((n, l) => n + size(l), 0);
    if (size(box as AnyNode) <= SLACK * (pick + listed) + 500) return { box, lists: held };
  }
  // The pick and the lists are far apart: the box around the largest list, up to its region.
  let region: ParentNode = largest.parent ?? root;
  while (region !== root && region.parent && size(region.parent as AnyNode) <= SLACK * size(largest) + 500)
    region = region.parent;
  return { box: region, lists: within(region) };
}

function contains(outer: AnyNode, inner: AnyNode): boolean {
  for (let x: AnyNode | null = inner; x; x = x.parent) if (x === outer) return true;
  return false;
}
