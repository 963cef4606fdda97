/**
 * Pruning (main-content.ts's first, third and fourth steps): what is never content, page
 * chrome around the provisional article, and link lists and fragments inside the pick.
 */
import type { AnyNode, Document, Element, ParentNode } from './dom.js';
import { findFirst as findFirstIn, hasImage, isElement, isTextNode, removeNode, textOf } from './dom.js';
import { isTexScript } from './markdown-embeds.js';
import { isHidden } from './visibility.js';
import { STRONG_CHROME, idClass, isChrome, isChromeTag, neverTheArticle } from './content-chrome.js';
import {
  BLOCKS,
  CLOSED_SENTENCE,
  LINKED_SENTENCE_GLUE,
  isLinkedSentence,
  type Stats,
  type StatsTable,
} from './content-scores.js';
import { contains, pickBest } from './content-pick.js';

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

export function stripNonContent(doc: Document): void {
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
export function stripChrome(root: ParentNode, stats: StatsTable): boolean {
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

const CONTAINERS = new Set(['div', 'section', 'ul', 'ol', 'header', 'form', 'dl', 'center', 'fieldset']);

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
 * Words of a sentence that announces a list ("For a breakdown of the charges, refer to the
 * following pages:"); as rescue.ts's sentence that says something. "Read more:" is a label.
 */
const ANNOUNCING_WORDS = 8;

/**
 * A list of links the text announces: right after a paragraph of the text's own words that
 * ends in a colon. The links are what the sentence points to (a docs page's "see the
 * following pages:"), not the page's navigation, which no sentence introduces.
 */
function isAnnouncedList(list: Element, stats: StatsTable): boolean {
  if (list.name !== 'ul' && list.name !== 'ol') return false;
  let p = list.prev;
  while (p && !isElement(p)) {
    if (isTextNode(p) && p.data.trim()) return false;
    p = p.prev;
  }
  if (!p || p.name !== 'p') return false;
  const s = stats.get(p);
  const line = textOf(p).trim();
  return (
    !!s && s.link < s.text && line.endsWith(':') && (line.match(/[\p{L}\p{N}]+/gu)?.length ?? 0) >= ANNOUNCING_WORDS
  );
}

/**
 * Remove link lists and scored-negative leftovers inside the article. `keep`: an element
 * whose boxes stay whatever their score (a product's heading and its buy box); `fragments`:
 * whether boxes of short fragments go too (not in a thread's posts); `sections`: whether a box
 * holding a table, a list or a quotation is spared as a section of the text (holdsStructure).
 */
export function pruneInside(
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
    // (So is a list the text announces: its items are what the sentence points to.)
    if (n.name === 'table' || n.name === 'pre' || kept.has(n) || isAnnouncedList(n, stats)) continue;
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
