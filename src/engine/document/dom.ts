/**
 * Small, allocation-light helpers over htmlparser2's DOM (domhandler nodes). The page is
 * parsed once (parse.ts) and every consumer — metadata, links, main content, markdown,
 * extraction — walks the same tree with these.
 */
import { Parser } from 'htmlparser2';
import { DomHandler, Element, Text, type AnyNode, type Document, type ParentNode } from 'domhandler';
import { FastTokenizer } from './fast-tokenizer.js';

/** The heading elements, h1 to h6 (in the tag sets of scoring, markdown, polish and extraction). */
export const HEADING_TAGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];

export type { AnyNode, Document, ParentNode };
export { Element };

// domelementtype's values, inlined: reading them through htmlparser2's re-exported
// namespace costs a getter call per node on the hottest loops.
const TAG = 'tag';
const SCRIPT = 'script';
const STYLE = 'style';
const TEXT = 'text';
const ROOT = 'root';
const CDATA = 'cdata';

/** Deeper than this, a subtree becomes its text: real pages never nest so deep, hostile ones do. */
export const MAX_DEPTH = 400;

/**
 * An element with a slot for main-content scoring, present from birth: giving nodes their
 * scores afterwards (as Map keys, or a property added later) allocated a hash or a property
 * array for every node of every page.
 */
export class ScoredElement extends Element {
  score: unknown = undefined;
}

/** A text node that remembers whether markdown may take it as it is (markdown.ts's needsWork found nothing). */
export class PipelineText extends Text {
  plain: boolean | undefined = undefined;
}

/** domhandler's tree builder, making the nodes above. */
class PipelineHandler extends DomHandler {
  override onopentag(name: string, attribs: Record<string, string>): void {
    const el = new ScoredElement(name, attribs);
    this.addNode(el);
    this.tagStack.push(el);
  }

  override ontext(data: string): void {
    const last = this.lastNode;
    if (last && last.type === TEXT) {
      last.data += data;
    } else {
      const node = new PipelineText(data);
      this.addNode(node);
      this.lastNode = node;
    }
  }
}

/** htmlparser2's Parser's own state used below (private in its typings). */
interface ParserInternals {
  stack: string[];
  startIndex: number;
  openTagStart: number;
  tagname: string;
  attribs: Record<string, string> | null;
  isVoidElement(name: string): boolean;
}

/**
 * htmlparser2's parser with nesting capped while parsing. Its open-element stack is an array
 * it `unshift`s on every open tag and searches on every close (`indexOf`), so a page of
 * 200,000 unclosed <div>s cost seconds per megabyte — quadratic in depth. Past MAX_DEPTH open
 * elements, a further opening tag is dropped: its text joins the deepest element, its closing
 * tag finds nothing to close (a search of at most MAX_DEPTH names), so parsing stays linear in
 * the input and a deep document still yields all its text. Real pages never nest so deep.
 */
class CappedParser extends Parser {}
const emitOpenTag = (Parser.prototype as unknown as { emitOpenTag(this: Parser, name: string): void }).emitOpenTag;
// (emitOpenTag is private in the typings: replaced on the subclass's prototype.)
Object.defineProperty(CappedParser.prototype, 'emitOpenTag', {
  value: function (this: Parser, name: string): void {
    const self = this as unknown as ParserInternals;
    if (self.stack.length >= MAX_DEPTH && !self.isVoidElement(name)) {
      self.openTagStart = self.startIndex;
      self.tagname = '';
      self.attribs = null;
      return;
    }
    emitOpenTag.call(this, name);
  },
});

const PARSER_OPTIONS = {
  decodeEntities: true,
  lowerCaseTags: true,
  lowerCaseAttributeNames: true,
  Tokenizer: FastTokenizer,
};

export function parseHtml(html: string): Document {
  const handler = new PipelineHandler(undefined, {});
  new CappedParser(handler, PARSER_OPTIONS).end(html);
  const doc = handler.root;
  limitDepth(doc, MAX_DEPTH);
  return doc;
}

/**
 * Replace every element found at `max` depth by a text node with its text, so the recursive
 * consumers (markdown, extraction) never meet a tree deep enough to exhaust the stack.
 */
export function limitDepth(root: ParentNode, max: number): void {
  // Two parallel stacks: no tuple per node on this per-page walk.
  const nodes: AnyNode[] = [...root.children];
  const depths: number[] = nodes.map(() => 1);
  while (nodes.length) {
    const n = nodes.pop()!;
    const depth = depths.pop()!;
    if (!isElement(n)) continue;
    if (depth >= max) {
      const text = new Text(textOf(n));
      const p = n.parent!;
      const i = p.children.indexOf(n);
      p.children[i] = text;
      text.parent = p;
      text.prev = n.prev;
      text.next = n.next;
      if (n.prev) n.prev.next = text;
      if (n.next) n.next.prev = text;
      continue;
    }
    for (const c of n.children) {
      if (!isElement(c)) continue;
      nodes.push(c);
      depths.push(depth + 1);
    }
  }
}

export const isElement = (n: AnyNode): n is Element => n.type === TAG || n.type === SCRIPT || n.type === STYLE;

export const isTextNode = (n: AnyNode): n is AnyNode & { data: string } => n.type === TEXT;

export function attr(el: Element, name: string): string | undefined {
  const v = el.attribs[name];
  return v === undefined ? undefined : v;
}

/**
 * All descendant elements in document order (iterative: deep pages must not blow the
 * stack). An array, not a generator: resuming a generator per element cost more than the
 * walk itself on the per-page passes (metadata, links).
 */
export function elements(root: ParentNode): Element[] {
  const out: Element[] = [];
  walk(root, (el) => void out.push(el));
  return out;
}

/** Visits descendant elements in document order until `visit` returns true; returns that element. */
function walk(root: ParentNode, visit: (el: Element) => boolean | void): Element | undefined {
  const stack: Element[] = [];
  pushElements(stack, root.children);
  while (stack.length) {
    const n = stack.pop()!;
    if (visit(n)) return n;
    pushElements(stack, n.children);
  }
  return undefined;
}

/** Element children onto the stack, last first (so the first comes off first). */
function pushElements(stack: Element[], children: AnyNode[]): void {
  for (let i = children.length - 1; i >= 0; i--) {
    const c = children[i];
    if (isElement(c)) stack.push(c);
  }
}

export function findAll(root: ParentNode, pred: (el: Element) => boolean): Element[] {
  const out: Element[] = [];
  walk(root, (el) => void (pred(el) && out.push(el)));
  return out;
}

export function findFirst(root: ParentNode, pred: (el: Element) => boolean): Element | undefined {
  return walk(root, pred);
}

export const byTag = (root: ParentNode, tag: string) => findAll(root, (e) => e.name === tag);

/**
 * Text content with script/style excluded. `separator` goes between text nodes, for when
 * words of neighbouring blocks must not run together ("1002/710" + "Black").
 */
export function textOf(node: AnyNode, separator = ''): string {
  if (isTextNode(node)) return node.data;
  if (!('children' in node) || node.type === SCRIPT || node.type === STYLE) return '';
  let s = '';
  const stack: AnyNode[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if (isTextNode(n)) s += separator ? n.data + separator : n.data;
    else if ((n.type === TAG || n.type === ROOT || n.type === CDATA) && 'children' in n) {
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
    }
  }
  return s;
}

/** The source text of a <script> or <style> (which textOf leaves out). */
export function scriptText(el: Element): string {
  let s = '';
  for (const c of el.children) if (isTextNode(c)) s += c.data;
  return s;
}

export const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Whitespace that collapsing would change: anything but single spaces. */
export const MESSY_SPACE = /[\t\n\v\f\r\u00a0]| {2}/;

/** Length of `s`, known to hold only single spaces, without a space at either end. */
export function singleSpacedLength(s: string): number {
  let n = s.length;
  if (n > 0 && s.charCodeAt(0) === 32) n--;
  if (n > 0 && s.charCodeAt(s.length - 1) === 32) n--;
  return n;
}

/** Length of `s` with whitespace runs counted as one and the ends trimmed (no allocation). */
export function collapsedLength(s: string): number {
  // Most text is words and single spaces: one native scan instead of a loop over every
  // character (the loop was half of main-content scoring).
  if (!MESSY_SPACE.test(s)) return singleSpacedLength(s);
  let n = 0;
  let pendingSpace = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13) || c === 160) {
      pendingSpace = n > 0;
    } else {
      if (pendingSpace) n++;
      pendingSpace = false;
      n++;
    }
  }
  return n;
}

/** Whether an element shows a picture somewhere inside. */
export function hasImage(el: Element): boolean {
  for (const c of el.children)
    if (isElement(c) && (c.name === 'img' || c.name === 'picture' || hasImage(c))) return true;
  return false;
}

export function removeNode(n: AnyNode): void {
  const p = n.parent;
  if (!p) return;
  const i = p.children.indexOf(n as never);
  if (i >= 0) p.children.splice(i, 1);
  if (n.prev) n.prev.next = n.next;
  if (n.next) n.next.prev = n.prev;
  n.parent = n.prev = n.next = null;
}

/** Resolve `href` against `base`; undefined when it is not a usable http(s)/mailto URL. */
export function absoluteUrl(href: string | undefined, base: string): string | undefined {
  if (!href) return undefined;
  const h = href.trim();
  if (!h || h.startsWith('javascript:') || h.startsWith('data:') || (h.startsWith('#') && !base)) return undefined;
  // "/p/12?page=2" on https://example.com/… is https://example.com/p/12?page=2: no parser
  // needed (URL parsing was ~7 % of a crawl's document time). The base's origin is parsed
  // once per base. (A memo of whole resolutions was tried: +35 MB peak RSS inline, no gain.)
  if (PLAIN_PATH.test(h)) {
    if (base !== lastBase.url) lastBase = { url: base, origin: simpleOrigin(base) };
    if (lastBase.origin) return lastBase.origin + h;
  }
  try {
    const u = new URL(h, base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:' && u.protocol !== 'mailto:' && u.protocol !== 'tel:')
      return undefined;
    // user:password@ in a link (or in the page's own URL) is never repeated to a caller.
    if (u.username || u.password) {
      u.username = '';
      u.password = '';
    }
    return u.href;
  } catch {
    return undefined;
  }
}

let lastBase: { url: string; origin: string | undefined } = { url: '', origin: undefined };

/** A root-relative path made only of characters URL parsing leaves alone, without dot segments. */
const PLAIN_PATH = /^\/(?![/.])(?:[\w\-~/?=&+,:;@!$*#]|\.(?![./?#]|$))*$/;

/** scheme://host[:port] of an http(s) base without credentials, else undefined (use the parser). */
function simpleOrigin(base: string): string | undefined {
  try {
    const u = new URL(base);
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password) return undefined;
    return u.origin;
  } catch {
    return undefined;
  }
}

/** The document's base URL: `<base href>` resolved against the page URL. */
export function baseUrlOf(doc: Document, pageUrl: string): string {
  const base = findFirst(doc, (e) => e.name === 'base' && !!e.attribs.href);
  return (base && absoluteUrl(base.attribs.href, pageUrl)) || pageUrl;
}
