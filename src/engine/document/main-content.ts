/**
 * Main-content selection. The page is cut down in four steps:
 *  1. drop what is never content (scripts, styles, hidden nodes);
 *  2. score every element by the reading text it holds (one post-order pass): sentences
 *     count for it, link lists and short fragments against it;
 *  3. drop page chrome named by tag, role or class (nav, cookie banners, share bars, comments
 *     …) unless it wraps the provisional article, then pick the element with the best score;
 *  4. prune link-heavy and empty leftovers inside it, and polish (polish.ts).
 */
import type { AnyNode, Document, Element, ParentNode } from './dom.js';
import {
  ScoredElement,
  PipelineText,
  elements as elementsOf,
  findFirst as findFirstIn,
  collapsedLength,
  hasImage,
  isElement,
  isTextNode,
  removeNode,
  singleSpacedLength,
  textOf,
} from './dom.js';
import { flattenGraph, parseLenient } from './json-ld.js';
import { isTexScript, needsWork } from './markdown.js';
import { findHeadline, placeHeadline } from './headline.js';
import { isTeaserList } from './teasers.js';
import { withItems } from './items.js';
import { isPricedList } from './page-type.js';
import { COOKIE_NOTICE, cutAfterRelatedHeading, dropPictureCaptions, polishContent } from './polish.js';
import { isHidden } from './visibility.js';
import { findThread, threadContent, type ThreadHooks } from './thread.js';

// rt/rp: ruby annotations (furigana readings shown above the characters) are not the text:
// inline they would double every annotated word ("子こども").
const NEVER_CONTENT = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'iframe',
  'object',
  'embed',
  'button',
  'input',
  'select',
  'textarea',
  'dialog',
  'link',
  'meta',
  'rt',
  'rp',
]);
const CHROME_TAGS = new Set(['nav', 'footer', 'aside']);
const CHROME_ROLES = /^(?:navigation|banner|contentinfo|complementary|search|dialog|alertdialog|menu|menubar|toolbar)$/;

const NEGATIVE = new RegExp(
  [
    'cookie',
    'consent',
    'gdpr',
    'banner',
    'advert',
    'adslot',
    'ad-slot',
    'ad-container',
    'adsense',
    'dfp',
    'sponsor',
    'promo',
    'social',
    'share',
    'sharing',
    'newsletter',
    'subscribe',
    'signup',
    'sign-up',
    'related',
    'recommend',
    'popular',
    'trending',
    'most-read',
    'mostread',
    'comment',
    'disqus',
    'breadcrumb',
    'sidebar',
    'side-bar',
    '(?:^|[\\s_-])widget',
    'outbrain',
    'taboola',
    'modal',
    'popup',
    'overlay',
    'paywall',
    'footer',
    'masthead',
    'skip',
    'toolbar',
    'pagination',
    'pager',
    'byline',
    'author-info',
    'author-bio',
    'tags',
    'tag-list',
    'taglist',
    'read-more',
    'readmore',
    'more-stories',
    'next-article',
    'prev-next',
    'print',
    'rating',
    'follow',
    'nav',
    'menu',
    'header-',
    'top-bar',
    'utility',
    'login',
    'teaser',
    'card-list',
    'inline-ad',
    'native-ad',
    'gallery',
    'slideshow',
    'carousel',
    // Wikis' "[edit]" links beside each heading.
    'editsection',
    'edit-section',
  ].join('|'),
  'i',
);
const STRONG_CHROME =
  /gallery|slideshow|carousel|comment|related|recommend|newsletter|cookie|consent|outbrain|taboola|disqus|advert|sponsor/i;
/** Names that mark the article itself; they protect a container from the negative list. */
const POSITIVE =
  /article|body|content|entry|main|post|story|text|blog|prose|rich-?text|markdown|page-?content|embed|twitter-tweet|instagram-media/i;
const ARTICLE_BODY =
  /(?:^|[\s_-])(?:article-?body|articlebody|post-?body|entry-?content|post-?content|story-?body|article-?content|article__body|article__content|body-?text|article-?text|story-?content|main-?content|c-entry-content|post-?entry|rich-?text)(?:$|[\s_-])/i;

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

interface Stats {
  /** Characters of text outside links. */
  text: number;
  /** Characters of text inside links. */
  link: number;
  /** Reading-text score: long, sentence-like blocks add; link lists and fragments subtract. */
  score: number;
  /** Number of sentence-like blocks. */
  paras: number;
  /** The table these numbers belong to. */
  owner?: StatsTable;
}

/**
 * Each node's numbers for one selection, in the slot the parser gave every element (see
 * ScoredElement): a Map keyed by node cost an identity hash per element. An entry counts
 * only for the table that wrote it, so a new table (after a re-score) starts empty. Nodes
 * without the slot (the document, elements made elsewhere) go in a small Map.
 */
class StatsTable {
  readonly #others = new Map<AnyNode, Stats>();
  /** Subtrees whose text neither adds to nor takes from a score (teaser lists). */
  neutral?: Set<AnyNode>;

  get(n: AnyNode): Stats | undefined {
    if (n instanceof ScoredElement) {
      const s = n.score as Stats | undefined;
      return s?.owner === this ? s : undefined;
    }
    return this.#others.get(n);
  }

  set(n: AnyNode, s: Stats): void {
    s.owner = this;
    if (n instanceof ScoredElement) n.score = s;
    else this.#others.set(n, s);
  }
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

const idClass = (el: Element) => `${el.attribs.id ?? ''} ${el.attribs.class ?? ''}`;

function isChromeTag(el: Element): boolean {
  if (CHROME_TAGS.has(el.name)) return true;
  const role = el.attribs.role;
  return !!role && CHROME_ROLES.test(role);
}

/** Elements whose class names can mark page chrome; custom elements (mjx-container) cannot. */
const NAMED_CHROME_HOSTS = new Set([
  'div',
  'section',
  'aside',
  'ul',
  'ol',
  'nav',
  'header',
  'footer',
  'form',
  'table',
  'figure',
  'p',
  'span',
  'a',
  'li',
  'dl',
  'center',
  'iframe',
]);

/**
 * An element's designer-given names. An id of four words or more is a heading's anchor
 * ("sharing-with-a-single-developer" on a docs page about sharing), not a role.
 */
function chromeNames(el: Element): string {
  const id = el.attribs.id ?? '';
  let cls = el.attribs.class ?? '';
  // "js-" classes are hooks for scripts, named for what a script does with the element
  // ("js-lightbox-gallery": its pictures open in a lightbox), not for what it is.
  if (cls.includes('js')) cls = cls.replace(JS_HOOK, ' ');
  if (cls.includes('elementor-')) cls = cls.replace(BUILDER_LAYOUT, ' ');
  return `${id.split(/[-_]/).length >= 4 ? '' : id} ${cls}`;
}

const JS_HOOK = /(?:^|\s)js[-_]\S*/gi;

/**
 * A page builder's layout units, named for the builder's own parts ("elementor-widget-wrap",
 * "elementor-widget-heading"): every box of such a page is a "widget", its content's too. What
 * a unit holds is still named after it ("elementor-widget-share-buttons", "-nav-menu", "-form").
 */
const BUILDER_LAYOUT =
  /(?:^|\s)elementor-(?:widget(?:-(?:wrap|container|heading|text-editor|image|icon-list|icon-box|button|spacer|divider|video|html|shortcode|accordion|toggle|tabs|testimonial|image-box|counter|alert))?|element\S*|column\S*|section\S*|container\S*|top-\S*|inner-\S*|col-\S*)(?=\s|$)/g;

function isChrome(el: Element): boolean {
  if (isChromeTag(el)) return true;
  if (!NAMED_CHROME_HOSTS.has(el.name)) return false;
  const names = chromeNames(el);
  if (names.length < 2) return false;
  if (ARTICLE_BODY.test(names)) return false;
  return NEGATIVE.test(names) && !POSITIVE.test(names);
}

/**
 * A box inside the provisional article, ahead of most of its text, that reads as prose (a
 * sentence, links under a tenth of its text): part of the article whatever its name says — a
 * lead styled as a "teaser", a box "intro". (Chrome tags and add-on names are judged before
 * this is asked; after the body, such boxes are trailers and go.) `after` holds, per
 * element of the article, the text that follows it there (textAfter).
 */
function isProseBeforeBody(
  el: Element,
  article: ParentNode,
  stats: StatsTable,
  after: () => Map<AnyNode, number>,
): boolean {
  const s = stats.get(el);
  if (!s || s.paras < 1 || s.link > 0.1 * (s.text + s.link)) return false;
  const following = after().get(el);
  return following !== undefined && following >= 0.5 * (stats.get(article as AnyNode)?.text ?? 0);
}

/** For each element inside `root`, the text (outside links) that follows it within `root`: one walk. */
function textAfter(root: ParentNode, stats: StatsTable): Map<AnyNode, number> {
  const out = new Map<AnyNode, number>();
  const stack: [ParentNode, number][] = [[root, 0]];
  while (stack.length) {
    const [node, following] = stack.pop()!;
    let acc = following;
    for (let i = node.children.length - 1; i >= 0; i--) {
      const c = node.children[i];
      if (isTextNode(c)) acc += c.data.length;
      else if (isElement(c)) {
        out.set(c, acc);
        stack.push([c, acc]);
        acc += stats.get(c)?.text ?? 0;
      }
    }
  }
  return out;
}

/**
 * Names of a note set in the text (`<aside class="note">`, a "tip", a "warning", a "callout"):
 * the text's own remark, not a sidebar.
 */
const NOTE_NAME = /(?:^|[\s_-])(?:note|tip|hint|warning|caution|important|callout|admonition)s?(?:$|[\s_-])/i;

/** An <aside> (or role=note box) named as a note, inside the provisional article. */
function isNoteBox(el: Element, article: ParentNode): boolean {
  if (el.name !== 'aside' && el.attribs.role !== 'note') return false;
  if (el.attribs.role !== 'note' && !NOTE_NAME.test(idClass(el))) return false;
  return contains(article as AnyNode, el);
}

/** Less text than this outside links is an empty page (a title and a date at most). */
const EMPTY_TEXT = 100;

/**
 * Remove page chrome (nav, footer, sidebars, share bars, cookie banners …) named by tag,
 * role or class — unless the named element holds most of the page's reading text, which
 * happens when themes put words like "sidebar" or "widget" on the article's own wrappers.
 */
function stripChrome(root: ParentNode, stats: StatsTable): boolean {
  // The provisional article: chrome-named elements that wrap it are kept, all others go.
  const article = pickBest(root, stats);
  const wrappers = new Set<AnyNode>();
  for (let n: AnyNode | null = article as AnyNode; n; n = n.parent) wrappers.add(n);
  const articleScore = Math.max(1, stats.get(article)?.score ?? 0);
  // Computed on first need: few pages have a chrome-named box of prose inside the article.
  let following: Map<AnyNode, number> | undefined;
  const after = () => (following ??= textAfter(article, stats));
  const doomed: Element[] = [];
  const stack: AnyNode[] = [...root.children];
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    // …and so are those inside it that hold most of its text (themes name wrappers "widget").
    // Tags and roles (<aside>, <nav>, role=complementary) and names that only ever mean
    // an add-on (gallery, comments, related) are never such wrappers.
    if (
      !wrappers.has(n) &&
      !isNoteBox(n, article) &&
      ((isChrome(n) &&
        (isChromeTag(n) ||
          STRONG_CHROME.test(idClass(n)) ||
          ((stats.get(n)?.score ?? 0) < 0.5 * articleScore && !isProseBeforeBody(n, article, stats, after)))) ||
        neverTheArticle(n))
    ) {
      doomed.push(n);
      continue;
    }
    for (const c of n.children) stack.push(c);
  }
  // When chrome-named boxes hold every sentence of the page and what is left is all but
  // empty, the one holding most sentences is the page (a theme that names its article box
  // "gallery"): an empty answer is never right for a page with reading text. Not a comment
  // thread or a related-story box (a photo post's sentences may all be in its comments),
  // nor a chrome tag (<aside>, <nav>).
  const all = stats.get(root);
  const sum = (k: 'text' | 'paras') => doomed.reduce((n, el) => n + (stats.get(el)?.[k] ?? 0), 0);
  if (all && all.paras > 0 && sum('paras') >= all.paras && all.text - sum('text') < EMPTY_TEXT) {
    let box: Element | undefined;
    for (const el of doomed)
      if (!isChromeTag(el) && !neverTheArticle(el) && (stats.get(el)?.paras ?? 0) > (box ? stats.get(box)!.paras : 0))
        box = el;
    if (box) doomed.splice(doomed.indexOf(box), 1);
  }
  for (const n of doomed) {
    // Take the removed subtree's numbers out of its ancestors instead of a second full pass.
    const gone = stats.get(n);
    if (gone) {
      for (let a: AnyNode | null = n.parent; a; a = a.parent) {
        const s = stats.get(a);
        if (!s) continue;
        s.text -= gone.text;
        s.link -= gone.link;
        s.score -= gone.score;
        s.paras -= gone.paras;
      }
    }
    removeNode(n);
  }
  return doomed.length > 0;
}

function stripNonContent(doc: Document): void {
  const stack: AnyNode[] = [...doc.children];
  const doomed: AnyNode[] = [];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'comment' || n.type === 'directive') {
      doomed.push(n);
      continue;
    }
    if (!isElement(n)) continue;
    if ((NEVER_CONTENT.has(n.name) && !isTexScript(n)) || isHidden(n)) {
      doomed.push(n);
      continue;
    }
    for (const c of n.children) stack.push(c);
  }
  for (const n of doomed) removeNode(n);
}

const HEADING_TAG = /^h[1-6]$/;

const BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'pre',
  'blockquote',
  'table',
  'tr',
  'td',
  'th',
  'dl',
  'dt',
  'dd',
  'figure',
  'figcaption',
  'body',
  'center',
  'form',
  'fieldset',
  'address',
  'details',
  'summary',
  'tbody',
  'thead',
  'tfoot',
  'span',
]);

/** What the first scoring pass finds on its way: the page's h1/h2 headings (in order) and its teaser lists. */
interface Found {
  headings: Element[];
  neutral: Set<AnyNode>;
}

function insideAny(el: Element, set: Set<AnyNode>): boolean {
  if (!set.size) return false;
  for (let n: AnyNode | null = el.parent; n; n = n.parent) if (set.has(n)) return true;
  return false;
}

/**
 * Post-order pass. Text is gathered into the nearest block; a block's own inline text is
 * judged once (sentence or fragment, link share) and its verdict flows up to every ancestor.
 * `seen.cookies` is set when some text mentions cookies. Text nodes markdown would take as
 * they are are marked plain (PipelineText.plain): scoring reads every text node anyway, so
 * markdown need not scan them again.
 */
function computeStats(root: ParentNode, stats: StatsTable, seen?: { cookies: boolean }, found?: Found): Stats {
  // marks: headings and linked pictures in the subtree, what every teaser holds one of (teasers.ts).
  type Frame = {
    node: ParentNode;
    i: number;
    s: Stats;
    ownText: number;
    ownLink: number;
    ownRaw: string;
    marks: number;
    /** An <a> counted as a link (not a heading's anchor to its own section). */
    link?: boolean;
  };
  const mk = (node: ParentNode): Frame => ({
    node,
    i: 0,
    s: { text: 0, link: 0, score: 0, paras: 0, owner: stats },
    ownText: 0,
    ownLink: 0,
    ownRaw: '',
    marks: 0,
  });
  const frames: Frame[] = [mk(root)];
  // Inline text is credited to the innermost block frame; linkDepth tracks <a> nesting.
  const blockFrames: Frame[] = [frames[0]];
  let linkDepth = 0;
  while (frames.length) {
    const f = frames[frames.length - 1];
    if (f.i < f.node.children.length) {
      const c = f.node.children[f.i++];
      if (isTextNode(c)) {
        const t = c.data;
        if (seen && !seen.cookies && mentionsCookies(t)) seen.cookies = true;
        let len: number;
        if (c instanceof PipelineText && !needsWork(t)) {
          c.plain = true;
          len = singleSpacedLength(t);
        } else len = collapsedLength(t);
        if (len) {
          const bf = blockFrames[blockFrames.length - 1];
          if (linkDepth) bf.ownLink += len;
          else bf.ownText += len;
          if (bf.ownRaw.length < 400) bf.ownRaw += t;
        }
      } else if (isElement(c)) {
        const nf = mk(c);
        frames.push(nf);
        if (found && (c.name === 'h1' || c.name === 'h2')) found.headings.push(c);
        // A heading's link to its own section (href="#…") names the section: its text is the heading's.
        if (
          c.name === 'a' &&
          !(
            HEADING_TAG.test((blockFrames[blockFrames.length - 1].node as Element).name ?? '') &&
            c.attribs.href?.startsWith('#')
          )
        ) {
          nf.link = true;
          linkDepth++;
        }
        if (BLOCKS.has(c.name) && c.name !== 'span') blockFrames.push(nf);
      }
      continue;
    }
    frames.pop();
    const el = f.node as Element;
    if (f.link) linkDepth--;
    const isBlockFrame = blockFrames[blockFrames.length - 1] === f;
    if (isBlockFrame) {
      blockFrames.pop();
      // Captions describe pictures; they are neither the article's text nor against it.
      if (el.name === 'figcaption' || /caption/i.test(el.attribs?.class ?? '')) {
        f.s.text += f.ownText;
        f.s.link += f.ownLink;
      } else judgeOwnText(f, el.name, (el.parent as Element | null)?.name);
    }
    if (found && (el.name === 'img' ? linkDepth > 0 : HEADING_TAG.test(el.name))) f.marks++;
    // Three teasers hold three marks and nine characters of linked text at least: nothing to look at otherwise.
    if (found && f.marks >= 3 && f.s.link >= 9 && el.children?.length >= 3 && isTeaserList(el)) found.neutral.add(el);
    if (stats.neutral?.size && stats.neutral.has(f.node)) {
      f.s.score = 0;
      f.s.paras = 0;
    }
    stats.set(f.node, f.s);
    const parent = frames[frames.length - 1];
    if (parent) {
      parent.s.text += f.s.text;
      parent.s.link += f.s.link;
      parent.s.score += f.s.score;
      parent.s.paras += f.s.paras;
      parent.marks += f.marks;
      if (!isBlockFrame) {
        // Inline element: its own text already went to the enclosing block frame.
      }
    }
  }
  return stats.get(root)!;

  function judgeOwnText(f: Frame, tag: string, parentTag: string | undefined) {
    const text = f.ownText;
    const link = f.ownLink;
    f.s.text += text;
    f.s.link += link;
    const total = text + link;
    if (!total) return;
    const density = link / total;
    const commas = countCommas(f.ownRaw);
    if (density > 0.5 && tag === 'p' && isLinkedSentence(f.node as Element, text)) {
      // A sentence whose words are mostly links ("Read our first post or the second post.")
      // is prose that points somewhere: neither a paragraph of the article nor a link list.
    } else if (density > 0.5) {
      // Linked table cells are data (an infobox, a comparison), and so is a linked term of a
      // definition list (a reference's member, defined beside it); linked list items are menus.
      if (tag !== 'td' && tag !== 'th' && tag !== 'dt') f.s.score -= total;
    } else if (tag === 'pre' || (total >= 80 && (commas > 1 || SENTENCE_END.test(f.ownRaw))) || total >= 200) {
      f.s.score += text * (1 - density) + 25 * Math.min(commas, 10);
      f.s.paras += 1;
    } else if (/^h[1-6]$/.test(tag) || total >= 40) {
      f.s.score += text * 0.2;
    } else if (
      LIST_ITEMS.has(tag) ||
      (tag === 'p' &&
        ((parentTag !== undefined && LIST_ITEMS.has(parentTag)) ||
          (!link && total >= 12 && CLOSED_SENTENCE.test(f.ownRaw))))
    ) {
      // Short list items and cells are normal in articles; they neither help nor hurt —
      // nor does an item's text wrapped in a paragraph (`<li><p>Alpha</p></li>`, as
      // markdown renders loose lists, had made whole lists read as fragments), nor a
      // paragraph of one short sentence ("Call us any time.").
    } else {
      f.s.score -= total * 0.4;
    }
  }
}

const LIST_ITEMS = new Set(['li', 'td', 'th', 'dd', 'dt']);

/**
 * Characters of unlinked text a sentence of links needs around its links: the glue of "Read
 * <a>…</a> or the <a>…</a>." or "More in <a>…</a>, <a>…</a> and <a>…</a>." (~20), which a menu
 * ("Home | About | Contact") or a bare "<a>Next</a>." lacks. (Issue 40's link paragraphs.)
 */
const LINKED_SENTENCE_GLUE = 12;

/**
 * A paragraph that is one or more sentences with links in them: words of its own between the
 * links, and its end, a sentence's, in its own words ("… <a>contact us</a>."), not in a link's
 * ("Read also » <a>Ten ways to sleep better?</a>": a teaser line).
 */
function isLinkedSentence(el: Element, unlinked: number): boolean {
  if (unlinked < LINKED_SENTENCE_GLUE) return false;
  let own = '';
  let last: { data: string; linked: boolean } | undefined;
  const walk = (n: AnyNode, linked: boolean) => {
    if (isTextNode(n)) {
      if (!/\S/.test(n.data)) return;
      last = { data: n.data, linked };
      if (!linked) own += `${n.data} `;
    } else if (isElement(n)) for (const c of n.children) walk(c, linked || n.name === 'a');
  };
  walk(el, false);
  return !!last && !last.linked && CLOSED_SENTENCE.test(last.data) && SENTENCE_GLUE.test(own);
}

/** Two words in a row outside any link, as sentences have ("You can also", "or the"). */
const SENTENCE_GLUE = /\p{L}+\s+\p{L}+/u;

/** Whether `t` says "cookie" (lower case, as the notices' checks). Looking for the rare "k"
 * first: a search for "ookie" stops at every "o" of the text, and this runs on every text node. */
const mentionsCookies = (t: string) => t.includes('kie') && t.includes('ookie');

const SENTENCE_END = /[.!?。！？]["'”’)]?(?:\s|$)/;
/** Text that ends as a sentence does ("Call us any time."): a short one is content, not a fragment. */
const CLOSED_SENTENCE = /[.!?。！？]["'”’)]?\s*$/;
/** Commas (Latin, full-width and ideographic) in `s`, counted up to the 10 that scoring uses. */
function countCommas(s: string): number {
  // One native indexOf scan per kind (a block's text often has none: the regex walked it
  // position by position); a two-byte comma is never looked for in one-byte text.
  let n = countUpTo(s, ',', 10);
  if (n < 10) n += countUpTo(s, '，', 10 - n);
  if (n < 10) n += countUpTo(s, '、', 10 - n);
  return n;
}

function countUpTo(s: string, c: string, max: number): number {
  let n = 0;
  for (let i = s.indexOf(c); i >= 0 && n < max; i = s.indexOf(c, i + 1)) n++;
  return n;
}

function pickBest(root: ParentNode, stats: StatsTable): ParentNode {
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

const NEVER_THE_ARTICLE =
  /(?:^|[\s_-])(?:comments?|comment-?(?:list|box|area|section|thread)s?|disqus\w*|related|recommend\w*|outbrain|taboola)(?:$|[\s_-])/i;

/** Named as a comment thread or a related-stories box (and not holding the page's h1). */
function neverTheArticle(el: Element): boolean {
  const a = el.attribs;
  // (Most elements have no names, or names that say nothing of comments: tested raw first.)
  if (
    (!a.class && !a.id) ||
    !NAMED_CHROME_HOSTS.has(el.name) ||
    !(NEVER_THE_ARTICLE.test(a.class ?? '') || NEVER_THE_ARTICLE.test(a.id ?? ''))
  )
    return false;
  const names = chromeNames(el);
  return NEVER_THE_ARTICLE.test(names) && !ARTICLE_BODY.test(names) && !findFirstIn(el, (e) => e.name === 'h1');
}

const CONTAINERS = new Set(['div', 'section', 'ul', 'ol', 'header', 'form', 'dl', 'center', 'fieldset']);

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

function contains(outer: AnyNode, inner: AnyNode): boolean {
  for (let x: AnyNode | null = inner; x; x = x.parent) if (x === outer) return true;
  return false;
}

/**
 * A short sentence set between paragraphs of the text, each line in its own box (dialogue
 * in fiction: <div><span>They both took one.</span></div>): content, not a fragment. Widgets'
 * messages ("Request failed. Try again.") stand apart from the paragraphs.
 */
function storyLine(box: Element, s: Stats, stats: StatsTable): boolean {
  if (s.link > 0 || s.text > 200 || !CLOSED_SENTENCE.test(textOf(box))) return false;
  const paragraphBeside = (side: 'prev' | 'next'): boolean => {
    let n = box[side];
    while (n && !isElement(n)) n = n[side];
    const ns = n ? stats.get(n) : undefined;
    return !!ns && ns.paras > 0 && ns.link === 0;
  };
  return paragraphBeside('prev') && paragraphBeside('next');
}

/**
 * How negative a box's score must be, per character of its text, for pruning to take it for
 * fragments: a quarter of its text in fragment lines (each −0.4 a character) or a tenth in
 * bare links (−1). (Chosen on the study half from 0.05 / 0.1 / 0.2: 0.1 best there.)
 */
const FRAGMENT_SHARE = 0.1;

/** A box around a sentence of links (a page builder's text widget holding one), not a list of them. */
function wrapsLinkedSentence(box: Element, s: Stats): boolean {
  return (
    s.text >= LINKED_SENTENCE_GLUE &&
    !findFirstIn(box, (el) => el.name === 'li' || el.name === 'td') &&
    isLinkedSentence(box, s.text)
  );
}

/**
 * A box holding a table, a code block, a quotation, or a heading and a list of unlinked items (two or more) is a section
 * of the text (a changelog's version, a price table under its heading, a testimonial): a fragment in it (a button's
 * line) is judged by itself, never the whole box.
 */
function holdsStructure(box: Element, stats: StatsTable): boolean {
  let titled: boolean | undefined;
  return !!findFirstIn(box, (el) => {
    if (el.name === 'table' || el.name === 'pre' || el.name === 'blockquote') return true;
    if (el.name !== 'ul' && el.name !== 'ol') return false;
    // A list makes a section under a heading of its own ("Ingredients", "Version 2.3.1").
    if (!(titled ??= !!findFirstIn(box, (h) => /^h[2-6]$/.test(h.name)))) return false;
    const s = stats.get(el);
    return (
      !!s &&
      s.text > 0 &&
      s.link < 0.5 * (s.text + s.link) &&
      el.children.filter((c) => isElement(c) && c.name === 'li').length >= 2
    );
  });
}

/**
 * Remove link lists and scored-negative leftovers inside the article. `keep`: an element
 * whose boxes stay whatever their score (a product's heading and its buy box); `fragments`:
 * whether boxes of short fragments go too (not in a thread's posts); `sections`: whether a box
 * holding a table, a list or a quotation is spared as a section of the text (holdsStructure).
 */
function pruneInside(
  root: ParentNode,
  stats: StatsTable,
  keep?: Element,
  fragments = true,
  whole: readonly Element[] = [],
  sections = true,
): void {
  const spared = new Set<AnyNode>();
  const kept = new Set<AnyNode>(whole);
  for (const from of [keep, ...whole]) for (let n: AnyNode | null | undefined = from; n; n = n.parent) spared.add(n);
  const doomed: Element[] = [];
  const stack: AnyNode[] = [...root.children];
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    const s = stats.get(n);
    // A table is kept or dropped whole: pruning rows or cells would break its grid.
    if (n.name === 'table' || n.name === 'pre' || kept.has(n)) continue;
    if (s && BLOCKS.has(n.name)) {
      const total = s.text + s.link;
      const density = total ? s.link / total : 0;
      const hasMedia = n.name === 'figure' || hasImage(n);
      // A sentence may be mostly one long link; only a paragraph of bare links is a link list.
      const textBlock = n.name === 'p' || n.name === 'blockquote' || /^h[1-6]$/.test(n.name);
      // A heading is a teaser link when the link is most of it; "History [edit]" is a heading.
      const heading = /^h[1-6]$/.test(n.name);
      const linkList = textBlock
        ? s.link > 0 &&
          s.text < 25 &&
          s.paras === 0 &&
          (!heading || s.link >= s.text) &&
          !(n.name === 'p' && isLinkedSentence(n, s.text))
        : density > 0.5 && total > 0 && s.paras === 0 && !wrapsLinkedSentence(n, s);
      // Fragments must be a real share of the box: a list of "label: value" details with one
      // linked item ("Category: <a>Beginners</a>") is data, not a fragment box.
      const fragmentBox =
        fragments &&
        CONTAINERS.has(n.name) &&
        s.score < -FRAGMENT_SHARE * total &&
        s.paras === 0 &&
        !hasMedia &&
        !(sections && holdsStructure(n, stats));
      // A story line is kept whole: the boxes inside it have no paragraphs around them.
      if (fragmentBox && !linkList && storyLine(n, s, stats)) continue;
      if ((linkList || fragmentBox) && !spared.has(n)) {
        doomed.push(n);
        continue;
      }
      // A definition list stays whole too: its terms are often links (an API reference's
      // members), each with its definition beside it.
      if (n.name === 'dl') continue;
    }
    for (const c of n.children) stack.push(c);
  }
  for (const n of doomed) removeNode(n);
}
