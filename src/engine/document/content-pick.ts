/**
 * Picking the main content among the scored candidates: the best-scoring box, grown to the
 * article body it marks, to sections of one text and to the landmark it stands in.
 */
import type { AnyNode, Element, ParentNode } from './dom.js';
import { isElement } from './dom.js';
import { ARTICLE_BODY, idClass, neverTheArticle } from './content-chrome.js';
import type { StatsTable } from './content-scores.js';

export function pickBest(root: ParentNode, stats: StatsTable): ParentNode {
  let best: ParentNode = root;
  let bestScore = -Infinity;
  const stack: ParentNode[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    const s = stats.get(n);
    if (!s) continue;
    let score = s.score;
    if (isElement(n as AnyNode)) {
      const el = n as Element;
      const names = idClass(el);
      if (el.attribs.itemprop === 'articleBody' || ARTICLE_BODY.test(names)) score *= 1.15;
      else if (el.name === 'article' || el.name === 'main' || el.attribs.role === 'main') score *= 1.05;
    }
    if (score >= bestScore) {
      bestScore = score;
      best = n;
    }
    // Comment threads and related-story boxes are never the article, however much they say.
    for (const c of n.children)
      if (isElement(c) && stats.get(c) && stats.get(c)!.score > 0 && !neverTheArticle(c)) stack.push(c);
  }
  // Explicit article-body markup inside the winner is trusted when it holds a fair share
  // of the winner's text: the rest is then teasers, comments or widgets.
  const marked = findMarkedBody(best, stats);
  if (marked) return marked;
  // The chosen node can be a lone wrapper of its text: climb while the parent adds real
  // paragraphs (articles split across sibling containers), not only noise.
  let node = best;
  while (node.parent && node !== root) {
    const ps = stats.get(node.parent);
    const s = stats.get(node)!;
    if (!ps) break;
    const gained = ps.score - s.score;
    if (ps.paras > s.paras && gained > 0.25 * s.score) node = node.parent;
    else break;
  }
  // One paragraph is never a page's whole text when the box around it holds more text than links
  // (a second, shorter paragraph; a list): a fragment beside it (a button's line) had outweighed them.
  if (isElement(node as AnyNode) && (node as Element).name === 'p' && node.parent && node !== root) {
    const s = stats.get(node)!;
    const ps = stats.get(node.parent);
    const [text, link] = ps ? [ps.text - s.text, ps.link - s.link] : [0, 0];
    if (text > 0 && link < LANDMARK_LINK_DENSITY * (text + link)) node = node.parent;
  }
  return withLandmark(joinSections(node, root, stats), root, stats);
}

/**
 * A page's sections, each in wrappers of its own (page builders: `section > container > row >
 * column > widget`, one per h2 group; `<section>` after `<section>`): the content is all of
 * them, not the one that scored best. Climbing from the pick, every level where the box is one
 * of several siblings of its shape (same tag, same class names but for numbered ones) that read
 * as text (links under SECTION_LINK_DENSITY of it) joins them: the parent becomes the pick.
 * Levels where it is alone (or among boxes of other shapes: a builder's heading widget beside
 * its text widget) are climbed through.
 */
function joinSections(node: ParentNode, root: ParentNode, stats: StatsTable): ParentNode {
  let joined = node;
  for (let el: AnyNode = node as AnyNode; el !== (root as AnyNode) && el.parent; el = el.parent) {
    if (!isElement(el)) break;
    const parent = el.parent;
    if (!SECTION_TAGS.has(el.name)) continue;
    let alike = 0;
    let text = 0;
    let other = 0;
    let prose = true;
    for (const c of parent.children) {
      if (!isElement(c)) continue;
      const s = stats.get(c);
      if (!s) continue;
      if (sameShape(c, el)) {
        alike++;
        text += s.text + s.link;
        // Every one reads as text: one box of teasers among them and they are a listing.
        if (s.link > SECTION_LINK_DENSITY * (s.text + s.link) || stats.neutral?.has(c)) prose = false;
      } else other += s.text + s.link;
    }
    const own = (stats.get(el)?.text ?? 0) + (stats.get(el)?.link ?? 0);
    if (alike >= 2 && prose && other <= text && own <= SECTION_DOMINANT * text) joined = parent;
  }
  return joined;
}

/**
 * A section holding more than this share of its kind's text is the page's article, and the
 * short sections around it its add-ons (a sign-up band, "more to explore"): not joined.
 * (Issue 40, chosen between the two: the generated pages' largest section holds under half of
 * them; an article's body, most of its box.)
 */
const SECTION_DOMINANT = 0.6;

/** Boxes that lay out a page's sections. */
const SECTION_TAGS = new Set(['div', 'section', 'article']);
/**
 * Sections whose text is more links than this are teasers or menus, not parts of one text.
 * (Issue 40: prose sections of the generated pages stay under 0.1; teaser cards, a title link
 * over a one-sentence summary, are 0.3 and more.)
 */
const SECTION_LINK_DENSITY = 0.25;

/** A class name that numbers its box (`et_pb_section_3`, `elementor-element-3f2a`): not its shape. */
const NUMBERED = /\d/;

/** Same tag and the same class names, numbered ones aside. */
function sameShape(a: Element, b: Element): boolean {
  if (a.name !== b.name) return false;
  const shape = (el: Element) =>
    (el.attribs.class ?? '')
      .split(/\s+/)
      .filter((c) => c && !NUMBERED.test(c))
      .sort()
      .join(' ');
  return shape(a) === shape(b);
}

/**
 * The page's own statement of where its content is: a pick inside a `<main>` or an `<article>`
 * (role=main) grows to all of it, unless that box's text is mostly links (a landmark around
 * an index of teasers, a listing's grid): the rest of the landmark is the page's content too
 * (a list, a table, a heading after a paragraph of links); chrome named inside it went
 * before, and pruning still takes its link lists. A pick holding most of the landmark
 * (SECTION_DOMINANT) is its article: the rest is add-ons (a sign-up band, "more to explore").
 */
function withLandmark(node: ParentNode, root: ParentNode, stats: StatsTable): ParentNode {
  for (let el: AnyNode | null = node as AnyNode; el && el !== (root as AnyNode); el = el.parent) {
    if (!isElement(el) || !(el.name === 'main' || el.name === 'article' || el.attribs.role === 'main')) continue;
    if (el === (node as AnyNode)) return node;
    const s = stats.get(el);
    const pick = stats.get(node as AnyNode);
    if (!s || !pick) return node;
    const size = s.text + s.link;
    // A pick holding most of the landmark is its article; what else it holds are add-ons.
    if (pick.text + pick.link > SECTION_DOMINANT * size) return node;
    return s.link < LANDMARK_LINK_DENSITY * size ? el : node;
  }
  return node;
}

/**
 * A landmark (or a paragraph's box) whose text is more links than this is not grown to.
 * (Issue 40, chosen, not fitted: the generated pages' <main> stays under 0.15 with a paragraph
 * of links in it; a grid of teasers is over half links.)
 */
const LANDMARK_LINK_DENSITY = 0.35;

function findMarkedBody(best: ParentNode, stats: StatsTable): ParentNode | undefined {
  const bestScore = stats.get(best)?.score ?? 0;
  let found: Element | undefined;
  let foundScore = 0;
  const marked: Element[] = [];
  const stack: AnyNode[] = [...best.children];
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    const s = stats.get(n);
    if (!s || s.score <= 0) continue;
    if (n.attribs.itemprop === 'articleBody' || ARTICLE_BODY.test(idClass(n))) {
      marked.push(n);
      if (s.score > foundScore) {
        found = n;
        foundScore = s.score;
      }
    }
    for (const c of n.children) stack.push(c);
  }
  if (!found || foundScore < 0.4 * bestScore) return undefined;
  // One body in parts, each marked alike (sections with itemprop=articleBody, in wrappers of
  // their own with pictures or ads between them): the body is all of them, so the nearest
  // element holding every part. Parts each inside an <article> of their own are posts of a
  // listing, not one body.
  const post = (el: Element) => {
    for (let x: AnyNode | null = el.parent; x && x !== best; x = x.parent)
      if (isElement(x) && x.name === 'article') return x;
    return undefined;
  };
  const own = post(found);
  const parts = marked.filter(
    (m) => m === found || (sameMarking(m, found!) && !contains(found!, m) && !contains(m, found!) && post(m) === own),
  );
  if (parts.length < 2) return found;
  let common: ParentNode | null = found.parent;
  while (common && common !== best && !parts.every((p) => contains(common!, p))) common = common.parent;
  return common ?? best;
}

/** Marked as the article body the same way: both by itemprop=articleBody, or by the same class names. */
function sameMarking(a: Element, b: Element): boolean {
  if (b.attribs.itemprop === 'articleBody') return a.attribs.itemprop === 'articleBody';
  return !!a.attribs.class && a.attribs.class === b.attribs.class;
}

export function contains(outer: AnyNode, inner: AnyNode): boolean {
  for (let x: AnyNode | null = inner; x; x = x.parent) if (x === outer) return true;
  return false;
}
