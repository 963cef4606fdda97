/**
 * Never an empty answer when the page has text. When main-content selection leaves (almost)
 * nothing, the page is read again and the content taken, in steps, from: a wider cut of the
 * page (the pick without pruning, up to the box that holds the page's text), then the page's
 * own data — JSON-LD's text, the markup inside `<noscript>` (forums and apps serve their
 * server-rendered view there), and server-rendered state (`__NEXT_DATA__` …), of which the one
 * holding most text — and last the whole cleaned body. The first step with real text wins;
 * which one it was is reported as `metadata.content_source`. Only pages that came out scant pay for this (a second parse).
 */
import type { AnyNode, ParentNode } from './dom.js';
import { isElement, isTextNode, parseHtml } from './dom.js';
import { selectMainContent, type MainContentOptions } from './main-content.js';
import { appStateContent, jsonLdContent } from './page-data.js';
import type { PageSignals } from './page-type.js';

/** Where the content came from: the main-content pick, a fallback step, or a browser render (scrape.ts). */
export type ContentSource = 'main' | 'wider' | 'body' | 'json_ld' | 'noscript' | 'app_state' | 'browser';

/** Fewer letters and digits than this in the content is almost nothing (a title, a price, a button). */
export const SCANT_LETTERS = 150;
/**
 * Fewer letters than this is an empty answer whatever the page holds: no sentence of any
 * length ("Loading…", "You need to enable JavaScript to run this app.": 38).
 */
const EMPTY_LETTERS = 50;
/**
 * A short answer holding at least this share of the page's letters once its chrome went is
 * the page, whole (a short product page: a name, a price, a line). (Issue 40: complete short
 * pages had the "almost no text" warning; chosen, not fitted.)
 */
const WHOLE_PAGE_SHARE = 0.5;
/** Words of a sentence that says something: a notice's "The shop is closed on Monday for a stocktake." */
const SENTENCE_WORDS = 8;

/**
 * Whether `answer`, `letters` letters long once every fallback failed, is almost empty: under
 * EMPTY_LETTERS, or short with neither a sentence of SENTENCE_WORDS words nor half of what the
 * page (`page`, its chrome cut away by the selection) holds.
 */
export function isScant(answer: AnyNode, letters: number, page: AnyNode): boolean {
  if (letters < EMPTY_LETTERS) return true;
  if (letters >= SCANT_LETTERS || holdsSentence(answer)) return false;
  return letters < WHOLE_PAGE_SHARE * lettersUpTo(page, 2 * SCANT_LETTERS);
}

/** Inline elements: their text runs on in the block around them. */
const INLINE = new Set(['a', 'span', 'strong', 'em', 'b', 'i', 'code', 'small', 'time', 'abbr', 'mark', 'sup', 'sub']);

/** Whether a block of `root` ends as a sentence and has SENTENCE_WORDS words. */
function holdsSentence(root: AnyNode): boolean {
  const blocks: string[] = [''];
  const stack: AnyNode[] = [root];
  while (stack.length) {
    const x = stack.pop()!;
    if (isTextNode(x)) blocks[blocks.length - 1] += x.data;
    else if (isElement(x) || x.type === 'root') {
      // (A block starts a new run of text; what follows it may join that run: close enough here.)
      if (isElement(x) && !INLINE.has(x.name)) blocks.push('');
      const kids = (x as ParentNode).children;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    }
  }
  return blocks.some((b) => SENTENCE_END.test(b) && (b.match(WORD)?.length ?? 0) >= SENTENCE_WORDS);
}

const SENTENCE_END = /[.!?。！？]["'”’)]?\s*$/;
const WORD = /\p{L}+/gu;

/** A fallback is taken only when it holds at least this much text … */
const RESCUE_LETTERS = 200;
/** … and this many times what the pick held. */
const RESCUE_FACTOR = 2;
/** The whole body is taken only when it holds this many sentence-like blocks. */
const BODY_PARAS = 2;

/** Letters and digits in a subtree's text, counted up to `max` (the walk stops there). */
export function lettersUpTo(root: AnyNode, max: number): number {
  let n = 0;
  const stack: AnyNode[] = [root];
  while (stack.length) {
    const x = stack.pop()!;
    if (isTextNode(x)) {
      n += countLetters(x.data, max - n);
      if (n >= max) return n;
    } else if (isElement(x) || x.type === 'root') {
      if (isElement(x) && (x.name === 'script' || x.name === 'style')) continue;
      const kids = (x as ParentNode).children;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    }
  }
  return n;
}

const LETTER = /[\p{L}\p{N}]/u;

/** Letters and digits in `s`, counted up to `max` (ASCII by code, the rest by Unicode class; no array of matches). */
function countLetters(s: string, max: number): number {
  let n = 0;
  for (let i = 0; i < s.length && n < max; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) {
      if ((c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122)) n++;
    } else if (LETTER.test(s[i])) n++;
  }
  return n;
}

export interface Rescued {
  root: ParentNode;
  source: Exclude<ContentSource, 'main' | 'browser'>;
}

/**
 * The first fallback that holds real text, or undefined when none does (the page has none:
 * the pick stands). `had`: letters the pick held; `pageText`: characters of the page's visible
 * text before chrome went (main-content scoring counts them); `signals`: the page's JSON-LD,
 * scripts and `<noscript>` boxes, noted on the metadata walk (so the data steps parse nothing).
 */
export function rescueContent(
  source: string,
  options: MainContentOptions,
  had: number,
  pageText: number,
  signals: PageSignals,
): Rescued | undefined {
  const need = Math.max(RESCUE_LETTERS, RESCUE_FACTOR * had);
  const enough = (root: ParentNode | undefined) => !!root && lettersUpTo(root, need) >= need;
  // The visible page can only give more when it holds more text than is needed.
  const visible = options.onlyMainContent && pageText >= need;
  if (visible) {
    const wider = selectMainContent(parseHtml(source), { ...options, scope: 'wider' });
    if (enough(wider)) return { root: wider, source: 'wider' };
  }
  // The page's own data: of what its JSON-LD states, its <noscript> view and its state for
  // scripts, the one that says most (JSON-LD often holds a shortened text the others hold
  // whole). It states the content itself, where the whole body also holds the page's furniture.
  let best: Rescued | undefined;
  let most = need - 1;
  for (const [name, make] of [
    ['json_ld', () => (signals.jsonLd.length ? jsonLdContent(signals.jsonLd) : undefined)],
    ['noscript', () => (signals.noscripts ? withNoscript(source, options) : undefined)],
    ['app_state', () => (signals.scripts.length ? appStateContent(signals.scripts) : undefined)],
  ] as const) {
    const root = make();
    const letters = root ? lettersUpTo(root, Infinity) : 0;
    if (root && letters > most) [best, most] = [{ root, source: name }, letters];
  }
  if (best || !visible) return best;
  // The whole body only when it holds prose the pick missed (two sentence-like blocks at
  // least), not merely more of the page's labels and links.
  const seen = { teaserLists: 0, posts: 0, paras: 0 };
  const body = selectMainContent(parseHtml(source), { ...options, scope: 'body', seen });
  return seen.paras >= BODY_PARAS && enough(body) ? { root: body, source: 'body' } : undefined;
}

/**
 * The page with its `<noscript>` markup read as content (a forum's or an app's server-rendered
 * view for clients without scripts), main content picked as usual; undefined when no
 * `<noscript>` holds text.
 */
function withNoscript(source: string, options: MainContentOptions): ParentNode | undefined {
  const doc = parseHtml(source);
  let found = false;
  const stack: AnyNode[] = [...doc.children];
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    if (n.name === 'noscript') {
      if (lettersUpTo(n, 1) > 0) found = true;
      // The box stays, as a plain one: a <div> is never dropped as non-content.
      n.name = 'div';
    }
    for (const c of n.children) stack.push(c);
  }
  return found ? selectMainContent(doc, options) : undefined;
}
