/**
 * A discussion thread read as a sequence of posts. A post is the smallest box that holds a
 * time (a `<time>`, an item's date, a box named "date"/"time" with a date in it), an author (an
 * item's author, rel=author, a box named "author"/"username"/"poster") and prose of its own
 * beyond those two. A page with two posts or more, alike in structure, that hold a fair share
 * of its text and are not preceded by an article (whose comments they would be), is a thread: its content is every post in order, each introduced by its author and date, with the
 * post's furniture (the author's card and stats, the date row, share and reply buttons,
 * signatures) left out. Found by structure, whatever the forum software.
 */
import type { AnyNode, Element, ParentNode } from './dom.js';
import { collapse, isElement, isTextNode, removeNode, textOf } from './dom.js';
import { Element as DomElement, Text } from 'domhandler';

/** What main-content scoring knows of a box. */
export interface BoxStats {
  /** Characters outside links. */
  text: number;
  link: number;
  /** Sentence-like blocks. */
  paras: number;
}

export interface ThreadHooks {
  stats(n: AnyNode): BoxStats | undefined;
  /** Page chrome by tag, role or name (nav, footers, share bars …). */
  isChrome(el: Element): boolean;
  /** Named as a comment thread or a related-stories box. */
  isCommentBox(el: Element): boolean;
  /** Link lists and fragment boxes out of a post's body. */
  prune(box: Element): void;
}

export interface Post {
  box: Element;
  author: string;
  date: string;
}

const AUTHOR_CLASS =
  /(?:^|[\s_-])(?:author|authors|username|user-?name|poster|post-?author|creator|byline|user-?details|user-?info|userinfo|postauthor|messageuserinfo)(?:$|[\s_-])/i;
const TIME_CLASS =
  /(?:^|[\s_-])(?:date|time|timestamp|datetime|relativetime|post-?date|post-?time|posted|dateline)(?:$|[\s_-])/i;
const DATE_TEXT = /\d|\bago\b|yesterday|today/i;
const DATE_ITEMPROP = /^(?:datePublished|dateCreated|uploadDate)$/;
/** Boxes never part of a thread's posts: widgets listing other threads' latest posts. */
const WIDGET_NAME = /sidebar|widget|related|recommend|similar|latest|recent|trending|popular/i;

/** The author's signature under each of their posts. */
const SIGNATURE = /(?:^|[\s_-])(?:signature|sig)(?:$|[\s_-])/i;
/** A post's header row or byline box, by its name. */
const HEADER_NAME =
  /(?:^|[\s_-])(?:meta|metadata|info|infos|header|byline|attribution|signature|footer|stats)(?:$|[\s_-])/i;
/** Prose a post must hold besides its author and date (characters outside links). */
const MIN_BODY = 20;
/** The posts must hold this share of the page's text outside links. */
const MIN_SHARE = 0.3;
/** Unlinked text before the first post beyond this (and beyond the first post's) is an article the posts comment on. */
const ARTICLE_BEFORE = 1000;

function isAuthorMarker(el: Element): boolean {
  const a = el.attribs;
  if (el.name === 'meta' || el.name === 'link') return false;
  if (a.itemprop && /^(?:author|creator)$/.test(a.itemprop)) return true;
  if (el.name === 'a' && /(?:^|\s)author(?:\s|$)/i.test(a.rel ?? '')) return true;
  const cls = a.class;
  return !!cls && AUTHOR_CLASS.test(cls);
}

function isTimeMarker(el: Element): boolean {
  const a = el.attribs;
  if (el.name === 'time') return true;
  if (a.itemprop && DATE_ITEMPROP.test(a.itemprop)) return el.name !== 'meta' || !!a.content;
  const cls = a.class;
  return !!cls && TIME_CLASS.test(cls) && cls.length < 80 && DATE_TEXT.test(textOf(el).slice(0, 80));
}

/**
 * The posts of a thread inside `root`, in document order, or undefined when the page is not
 * one. `root` is the page after non-content went and before chrome is stripped (forums name
 * their posts "comment" and "message", which chrome stripping takes for add-ons).
 */
export function findThread(root: ParentNode, hooks: ThreadHooks): Post[] | undefined {
  const authors: Element[] = [];
  const times: Element[] = [];
  // (Inside an author's card only dates are looked for: "asked Jun 29" sits in the card.)
  const stack: [AnyNode, boolean][] = root.children.map((c) => [c, false]);
  while (stack.length) {
    const [n, inCard] = stack.pop()!;
    if (!isElement(n)) continue;
    if (isTimeMarker(n)) {
      times.push(n);
      continue;
    }
    const card = !inCard && isAuthorMarker(n);
    if (card) authors.push(n);
    for (const c of n.children) stack.push([c, inCard || card]);
  }
  if (authors.length < 2 || times.length < 2) return undefined;
  // Per box: the characters (outside links) of the author markers inside it.
  const authorsIn = new Map<AnyNode, number>();
  for (const a of authors) {
    const t = hooks.stats(a)?.text ?? 0;
    for (let n: AnyNode | null = a.parent; n && n !== root; n = n.parent) authorsIn.set(n, (authorsIn.get(n) ?? 0) + t);
  }
  const boxes = new Set<Element>();
  for (const t of times) {
    const own = hooks.stats(t)?.text ?? 0;
    for (let n: AnyNode | null = t.parent; n && n !== root; n = n.parent) {
      const a = authorsIn.get(n);
      if (a === undefined) continue;
      const s = hooks.stats(n);
      // (A box named for the post's header — "post-meta", "info" — holds no body: climb on.)
      if (s && s.text - a - own >= MIN_BODY && !HEADER_NAME.test((n as Element).attribs.class ?? '')) {
        boxes.add(n as Element);
        break;
      }
    }
  }
  // Boxes inside another (a quoted post) belong to it; boxes holding several are containers.
  const all = [...boxes];
  const list = all.filter((b) => all.filter((o) => o !== b && contains(b, o)).length < 2);
  const posts = list.filter((b) => !list.some((o) => o !== b && contains(o, b)) && !inWidget(b, root, hooks));
  // Comments on the posts (a Q&A's remarks under each answer) are not posts of the thread:
  // when some posts stand outside any box named for comments, those inside one go.
  const open = posts.filter((p) => !inCommentBox(p, root, hooks));
  if (open.length && open.length < posts.length) posts.splice(0, posts.length, ...open);
  if (posts.length < 2) return undefined;
  const total = hooks.stats(root as AnyNode)?.text ?? 0;
  const held = posts.reduce((n, p) => n + (hooks.stats(p)?.text ?? 0), 0);
  if (held < MIN_SHARE * total) return undefined;
  const same = alike(posts);
  if (!same || same.length < 2) return undefined;
  const inOrder = documentOrder(root, new Set(same));
  // An article with comments under it is an article: its text comes before the first post.
  const before = proseBefore(root, inOrder[0]);
  if (before > Math.max(ARTICLE_BEFORE, hooks.stats(inOrder[0])?.text ?? 0)) return undefined;
  return inOrder.map((box) => ({ box, author: authorOf(box, authors), date: dateOf(box, times) }));
}

function contains(outer: AnyNode, inner: AnyNode): boolean {
  for (let x: AnyNode | null = inner.parent; x; x = x.parent) if (x === outer) return true;
  return false;
}

/** Inside a sidebar, a footer, a nav, or a box of other threads' posts. */
function inWidget(el: Element, root: ParentNode, hooks: ThreadHooks): boolean {
  for (let n: AnyNode | null = el; n && n !== root; n = n.parent) {
    if (!isElement(n)) continue;
    if (n.name === 'nav' || n.name === 'aside' || n.name === 'footer') return true;
    const names = `${n.attribs.id ?? ''} ${n.attribs.class ?? ''}`;
    if (names.length > 1 && WIDGET_NAME.test(names) && hooks.isChrome(n)) return true;
  }
  return false;
}

/** The posts that repeat one structure (a tag and a class name shared with another post), when they are most. */
function alike(posts: Element[]): Element[] | undefined {
  const sig = (e: Element) => new Set((e.attribs.class ?? '').split(/\s+/).filter(Boolean));
  const sigs = posts.map(sig);
  const matched = posts.filter((p, i) =>
    posts.some(
      (q, j) =>
        j !== i &&
        q.name === p.name &&
        (sigs[i].size === 0 ? sigs[j].size === 0 : [...sigs[i]].some((c) => sigs[j].has(c))),
    ),
  );
  return matched.length * 2 > posts.length ? matched : undefined;
}

const SENTENCE_RUN = 40;

/** Unlinked prose before `first` in document order, outside navigation, headers, footers and asides. */
function proseBefore(root: ParentNode, first: Element): number {
  let n = 0;
  const stack: [AnyNode, boolean][] = [...root.children].reverse().map((c) => [c, false]);
  while (stack.length) {
    const [x, inLink] = stack.pop()!;
    if (x === first) return n;
    if (isTextNode(x)) {
      // (Only runs of words a sentence long: labels, counts and menus are many short pieces;
      // a consent notice's text is about cookies, not an article.)
      const len = inLink ? 0 : x.data.trim().length;
      if (len >= SENTENCE_RUN && !/cookie/i.test(x.data)) n += len;
      continue;
    }
    if (!isElement(x) || CHROME_TAGS.has(x.name)) continue;
    const link = inLink || x.name === 'a';
    for (let i = x.children.length - 1; i >= 0; i--) stack.push([x.children[i], link]);
  }
  return n;
}

const CHROME_TAGS = new Set(['nav', 'header', 'footer', 'aside']);

function inCommentBox(el: Element, root: ParentNode, hooks: ThreadHooks): boolean {
  for (let n: AnyNode | null = el.parent; n && n !== root; n = n.parent)
    if (isElement(n) && hooks.isCommentBox(n)) return true;
  return false;
}

function documentOrder(root: ParentNode, wanted: Set<Element>): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    if (wanted.has(n)) {
      out.push(n);
      continue;
    }
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  return out;
}

const firstIn = (box: Element, markers: Element[]) => markers.find((m) => contains(box, m));

/** The post's author as shown: the item's name, else the name's link in the author's card, else the card's short text. */
function authorOf(box: Element, authors: Element[]): string {
  const m = firstIn(box, authors);
  if (!m) return '';
  const named = findIn(m, (e) => e.attribs.itemprop === 'name');
  const name = named ? collapse(named.attribs.content || textOf(named)) : '';
  if (name) return name;
  // A card shows a badge or rank beside the name ("Silver Partner"): the name is its link.
  const link = m.name === 'a' ? undefined : findIn(m, (e) => e.name === 'a' && collapse(textOf(e)).length > 0);
  if (link) return collapse(textOf(link)).slice(0, 60);
  return collapse(textOf(m)).slice(0, 60);
}

/** The post's date as shown (the first of a long and a short spelling), else as the markup states it. */
function dateOf(box: Element, times: Element[]): string {
  let m = firstIn(box, times);
  if (!m) return '';
  // A box named "date" around the <time> itself: the <time> says it.
  if (m.name !== 'time') m = findIn(m, (e) => e.name === 'time') ?? m;
  const parts = m.children.filter((c): c is Element => isElement(c) && collapse(textOf(c)) !== '');
  const shown = collapse(parts.length >= 2 ? textOf(parts[0]) : textOf(m));
  return shown || m.attribs.datetime || m.attribs.content || '';
}

function findIn(root: Element, pred: (e: Element) => boolean): Element | undefined {
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    if (pred(n)) return n;
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  return undefined;
}

/**
 * The thread as content: `headline` first (when found), then each post — a line with its
 * author and date, and its body without the furniture around it.
 */
export function threadContent(posts: Post[], hooks: ThreadHooks, headline?: Element): Element {
  const out = new DomElement('div', {});
  if (headline) {
    removeNode(headline);
    append(out, headline);
  }
  for (const p of posts) {
    cleanPost(p.box, hooks);
    const head = [p.author && `**${p.author}**`, p.date].filter(Boolean).join(' · ');
    if (head) {
      const line = new DomElement('p', {});
      if (p.author) {
        const strong = new DomElement('strong', {});
        append(strong, new Text(p.author));
        append(line, strong);
      }
      if (p.date) append(line, new Text(p.author ? ` · ${p.date}` : p.date));
      append(out, line);
    }
    removeNode(p.box);
    append(out, p.box);
  }
  return out;
}

/** The author's card, the date row and chrome out of a post; link lists and fragments pruned. */
function cleanPost(box: Element, hooks: ThreadHooks): void {
  const authors: Element[] = [];
  const times: Element[] = [];
  const chrome: Element[] = [];
  const stack: AnyNode[] = [...box.children];
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    if (isAuthorMarker(n)) authors.push(n);
    else if (isTimeMarker(n)) times.push(n);
    else if (hooks.isChrome(n) || SIGNATURE.test(n.attribs.class ?? '')) chrome.push(n);
    else for (const c of n.children) stack.push(c);
  }
  const around = (markers: Element[]) => {
    const set = new Set<AnyNode>();
    for (const m of markers) for (let n: AnyNode | null = m; n && n !== box; n = n.parent) set.add(n);
    return set;
  };
  const withTime = around(times);
  const withAuthor = around(authors);
  const paras = (n: AnyNode) => hooks.stats(n)?.paras ?? 0;
  const text = (n: AnyNode) => hooks.stats(n)?.text ?? 0;
  const doomed: Element[] = [...chrome];
  // The author's card: up to the box that also holds the date or a sentence.
  for (const a of authors) {
    let n = a;
    while (n.parent && n.parent !== box && !withTime.has(n.parent) && paras(n.parent) === 0) n = n.parent as Element;
    doomed.push(n);
  }
  // The date's row: up to the box that adds words of its own (a short post's "Thanks!" stays).
  for (const t of times) {
    let n = t;
    while (
      n.parent &&
      n.parent !== box &&
      !withAuthor.has(n.parent) &&
      paras(n.parent) === 0 &&
      text(n.parent) - text(n) < 5
    )
      n = n.parent as Element;
    doomed.push(n);
  }
  for (const n of doomed) removeNode(n);
  hooks.prune(box);
}

function append(parent: Element, child: AnyNode): void {
  const last = parent.children[parent.children.length - 1];
  child.parent = parent;
  child.prev = last ?? null;
  child.next = null;
  if (last) last.next = child;
  parent.children.push(child as never);
}
