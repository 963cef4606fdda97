/**
 * Main-content selection. The page is cut down in four steps:
 *  1. drop what is never content (scripts, styles, hidden nodes);
 *  2. score every element by the reading text it holds (one post-order pass): sentences
 *     count for it, link lists and short fragments against it;
 *  3. drop page chrome named by tag, role or class (nav, cookie banners, share bars, comments
 *     …) unless it wraps the provisional article, then pick the element with the best score;
 *  4. prune link-heavy and empty leftovers inside it, and polish (polish.ts).
 * Each step is a module of its own: content-prune.ts (steps 1, 3 and 4), content-scores.ts (step 2),
 * content-chrome.ts (the names that mark chrome) and content-pick.ts (the pick); this file runs them.
 */
import type { AnyNode, Document, Element, ParentNode } from './dom.js';
import { elements as elementsOf, findFirst as findFirstIn, isElement, isTextNode, removeNode, textOf } from './dom.js';
import { flattenGraph, parseLenient } from './json-ld.js';
import { findHeadline, placeHeadline } from './headline.js';
import { withItems } from './items.js';
import { isPricedList } from './page-type.js';
import { COOKIE_NOTICE, cutAfterRelatedHeading, dropPictureCaptions, polishContent } from './polish.js';
import { findThread, threadContent, type ThreadHooks } from './thread.js';
import { idClass, isChrome, neverTheArticle } from './content-chrome.js';
import { StatsTable, computeStats, insideAny, type Found } from './content-scores.js';
import { pickBest } from './content-pick.js';
import { pruneInside, stripChrome, stripNonContent } from './content-prune.js';

export interface MainContentOptions {
  /** Drop navigation, footers and other page chrome, and pick the article. @default true */
  onlyMainContent: boolean;
  /** The page's titles (`<title>`, og:title …): the heading that names them is the article's headline, kept as the content's first line. */
  titles?: (string | null | undefined)[];
  /**
   * The page sells one item (see isProductPage): its content is the item's heading, price
   * and details together, not only the longest description block.
   */
  product?: boolean;
  /**
   * How much to keep (rescue.ts's fallbacks, when the pick left almost nothing): `wider` climbs
   * from the pick to the box holding half the page's text and prunes nothing inside it; `body`
   * keeps all of the body that is not page chrome. @default 'main'
   */
  scope?: 'main' | 'wider' | 'body';
  /**
   * The page may be a discussion thread (nothing in its markup says it is an article): when
   * its posts are found (thread.ts), the content is every post with its author and date.
   */
  thread?: boolean;
  /** The page states no article: lists of items it shows (a category's grid) may be its content (items.ts). */
  items?: boolean;
  /** The page states it is an article or when it was published (JSON-LD, microdata, a date): its picture captions go, as news texts leave them out (polish.ts). */
  article?: boolean;
  /** Filled with what the selection saw of the page's structure (page-type.ts reads it). */
  seen?: { teaserLists: number; pricedLists?: number; posts: number; paras?: number; text?: number };
}

/** Whether the page's markup describes one product (JSON-LD or microdata Product, og:type product). */
export function isProductPage(doc: Document): boolean {
  for (const el of elementsOf(doc)) {
    const a = el.attribs;
    if (el.name === 'meta' && /^og:type$/i.test(a.property ?? '') && /product/i.test(a.content ?? '')) return true;
    if (a.itemtype && /schema\.org\/Product$/i.test(a.itemtype) && a.itemprop === undefined) return true;
    if (el.name === 'script' && /ld\+json/i.test(a.type ?? '')) {
      const t = el.children.length === 1 && isTextNode(el.children[0]) ? el.children[0].data : '';
      if (t.includes('Product') && describesProduct(t)) return true;
    }
  }
  return false;
}

/**
 * Returns the element (or document) whose subtree is the page's content, after removing
 * non-content from it. Mutates the tree: run other consumers (links, metadata, extraction)
 * first.
 */
export function selectMainContent(doc: Document, options: MainContentOptions): ParentNode {
  stripNonContent(doc);
  if (!options.onlyMainContent) return bodyOf(doc);
  const root = bodyOf(doc);
  let stats = new StatsTable();
  const seen = { cookies: false };
  // Lists of teasers (links to other stories with a one-sentence summary each) neither make
  // nor spoil an article: their sentences count for nothing. On an index page, where they
  // are all there is, the page keeps them as it keeps any page without sentences.
  // (Both are found by the scoring pass itself: each walk over a page costs ~5 % of its time.)
  const found: Found = { headings: [], neutral: new Set() };
  stats.neutral = found.neutral;
  const all = computeStats(root, stats, seen, found);
  if (options.seen) {
    options.seen.teaserLists = found.neutral.size;
    options.seen.pricedLists = [...found.neutral].filter((l) => isPricedList(l as Element)).length;
    options.seen.text = all.text + all.link;
  }
  // Found before chrome goes: themes put the headline in a header box beside the body.
  const headings = found.headings.filter((h) => !insideAny(h, found.neutral));
  const headline = options.product
    ? undefined
    : findHeadline(
        headings,
        (options.titles ?? []).filter((t): t is string => !!t),
      );
  // A consent dialog's long explanations can outscore the page itself, and chrome is judged
  // around the best block: such dialogs go first (only on pages whose text mentions cookies).
  if (seen.cookies && dropConsentDialogs(root)) {
    const neutral = stats.neutral;
    stats = new StatsTable();
    stats.neutral = neutral;
    computeStats(root, stats);
  }
  // A thread's posts are its content, whatever their boxes are named (forums say "comment").
  if (options.thread && options.scope !== 'body') {
    const table = stats;
    const hooks: ThreadHooks = {
      stats: (n) => table.get(n),
      isChrome: (el) => isChrome(el),
      isCommentBox: (el) => neverTheArticle(el),
      // Scored afresh (its furniture is gone); a post's short body — "Thanks, that worked." —
      // is its text, not a fragment.
      prune: (box) => {
        const own = new StatsTable();
        computeStats(box, own);
        pruneInside(box, own, undefined, false);
      },
    };
    const posts = findThread(root, hooks);
    if (posts) {
      if (options.seen) options.seen.posts = posts.length;
      return threadContent(posts, hooks, headline);
    }
  }
  stripChrome(root, stats);
  if (options.seen) options.seen.paras = stats.get(root)?.paras ?? 0;
  // No sentence anywhere (a link directory, a tiny page): keep all that is not chrome.
  if ((stats.get(root)?.paras ?? 0) === 0) return root;
  // The fallbacks' cuts are polished too: a consent notice is never the content they rescue.
  if (options.scope === 'body') return polished(root, seen.cookies, options.article);
  let best = pickBest(root, stats);
  if (options.scope === 'wider') return polished(widen(best, root, stats), seen.cookies, options.article);
  // A product's heading is its name: the content reaches it, and pruning spares its box.
  const heading = options.product ? findFirstIn(root, (el) => el.name === 'h1') : undefined;
  if (heading) best = withHeading(best, heading, stats);
  // A page listing things: its item lists are its content (items.ts), kept whole.
  let lists: Element[] = [];
  if (options.items && !options.product) {
    const textOf = (n: AnyNode) => stats.get(n) ?? { text: 0, link: 0 };
    const items = withItems(best, root, found.neutral, textOf, stats.get(best)?.paras ?? 0);
    if (items) [best, lists] = [items.box, items.lists];
  }
  // (A product's pictures are its gallery: their captions name the item again.)
  dropPictureCaptions(best, !!options.article || !!options.product);
  if (!lists.length) cutAfterRelatedHeading(best, !!heading);
  // (A product page's boxes are judged as before issue 40: its spec boxes and gallery are
  // another issue's, and the modern set's product pages lost with them kept.)
  pruneInside(best, stats, heading, true, lists, !options.product);
  polishContent(best, seen.cookies);
  if (headline) placeHeadline(best, headline);
  return best;
}

const CONSENT_NAME = /cookie|consent|gdpr|onetrust|cybot|didomi|usercentrics|truste/i;

/** Whether a JSON-LD script's own items (top level or `@graph`) are a Product — not an article about one. */
function describesProduct(json: string): boolean {
  return flattenGraph(parseLenient(json)).some((d) => {
    const type = d && typeof d === 'object' ? (d as { '@type'?: unknown })['@type'] : undefined;
    return (Array.isArray(type) ? type : [type]).some(
      (t) => typeof t === 'string' && /^(?:https?:\/\/schema\.org\/)?Product$/i.test(t),
    );
  });
}

/**
 * Remove consent dialogs named as such (Cookiebot, OneTrust, a "cookie-bar" …) whose text
 * reads as a cookie notice — never one holding the page's h1 (a wrapper named for the
 * banner it shows). Returns whether any went.
 */
function dropConsentDialogs(root: ParentNode): boolean {
  const named: Element[] = [];
  const stack: AnyNode[] = [...root.children];
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    const a = n.attribs;
    if ((a.id || a.class) && CONSENT_NAME.test(idClass(n))) named.push(n);
    else for (const c of n.children) stack.push(c);
  }
  let dropped = false;
  for (const el of named) {
    if (findFirstIn(el, (e) => e.name === 'h1') || !COOKIE_NOTICE.test(textOf(el))) continue;
    removeNode(el);
    dropped = true;
  }
  return dropped;
}

/**
 * On a product page the description block alone leaves out the item's name and price,
 * which sit by its heading: widen to the smallest element holding both the chosen block
 * and the page's (first) h1.
 */
function withHeading(best: ParentNode, h1: Element, stats: StatsTable): ParentNode {
  const around = new Set<AnyNode>();
  for (let n: AnyNode | null = best as AnyNode; n; n = n.parent) around.add(n);
  let common: AnyNode | null = h1;
  while (common && !around.has(common)) common = common.parent;
  if (!common || common === best) return best;
  // Only when that adds the item's header, not the rest of the page (reviews, listings).
  const size = (n: AnyNode) => (stats.get(n)?.text ?? 0) + (stats.get(n)?.link ?? 0);
  return size(common) <= Math.max(3 * size(best as AnyNode), size(best as AnyNode) + 3000)
    ? (common as ParentNode)
    : best;
}

function polished(node: ParentNode, cookies: boolean, article?: boolean): ParentNode {
  dropPictureCaptions(node, !!article);
  polishContent(node, cookies);
  return node;
}

/** The pick's nearest ancestor (or itself) holding half the text left on the page. */
function widen(best: ParentNode, root: ParentNode, stats: StatsTable): ParentNode {
  const size = (n: AnyNode) => (stats.get(n)?.text ?? 0) + (stats.get(n)?.link ?? 0);
  const half = size(root as AnyNode) / 2;
  let node = best;
  while (node !== root && node.parent && size(node as AnyNode) < half) node = node.parent;
  return node;
}

/** The page's <body> (its <html>, or the document, when it has none). */
export function bodyOf(doc: Document): ParentNode {
  const html = doc.children.find((c): c is Element => isElement(c) && c.name === 'html');
  const body = html?.children.find((c): c is Element => isElement(c) && c.name === 'body');
  return body ?? html ?? doc;
}
