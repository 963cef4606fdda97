/**
 * The page's own data, read when its visible markup holds (almost) no content: the text a
 * page states about itself in JSON-LD (`articleBody`, a forum posting's `text` and its
 * comments), and the state a server rendered into the page for its scripts (`__NEXT_DATA__`,
 * other JSON data blocks, `window.__STATE__ = {…}`). Each becomes a small HTML tree that the
 * markdown writer renders like any content.
 */
import type { Document, Element } from './dom.js';
import { isTextNode, parseHtml } from './dom.js';
import { flattenGraph, parseLenient } from './json-ld.js';

/** The text of a script element (its source). */
function scriptSource(el: Element): string {
  let s = '';
  for (const c of el.children) if (isTextNode(c)) s += c.data;
  return s;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Plain text as paragraphs (blank lines part them; single line breaks stay breaks). */
function paragraphs(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${esc(p).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

/** A value that holds markup rather than plain text ("<p>…</p>" in a CMS's JSON). */
const MARKUP = /<(?:p|div|h[1-6]|ul|ol|li|br|blockquote|pre|table|strong|em|a)\b[^>]*>/i;

/** Text or markup from a JSON value, as HTML. */
const asHtml = (s: string) => (MARKUP.test(s) ? s : paragraphs(s));

const typesOf = (d: Record<string, unknown>): string[] =>
  [d['@type']]
    .flat()
    .filter((t): t is string => typeof t === 'string')
    .map((t) => t.replace(/^.*[/#]/, ''));

const nameOf = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return nameOf(v[0]);
  if (v && typeof v === 'object') {
    const n = (v as Record<string, unknown>).name;
    return typeof n === 'string' ? n : undefined;
  }
  return undefined;
};

const POSTING = /^(?:DiscussionForumPosting|SocialMediaPosting|Question|Answer|Comment)$/;

/** One post of a thread: who wrote it, when, and what. */
function postHtml(d: Record<string, unknown>): string {
  const body = [d.text, d.articleBody].find((v): v is string => typeof v === 'string' && v.trim() !== '');
  if (!body) return '';
  const author = nameOf(d.author);
  const date = typeof d.datePublished === 'string' ? d.datePublished : undefined;
  const head = [author && `<strong>${esc(author)}</strong>`, date && esc(date)].filter(Boolean).join(' · ');
  return `<div>${head ? `<p>${head}</p>` : ''}${asHtml(body)}</div>`;
}

/**
 * JSON-LD's statement of the page's text: the longest `articleBody` (or `text`) of an item;
 * a forum posting or question with its comments and answers, each post with its author, in
 * the order given. Undefined when the page states none.
 */
export function jsonLdContent(sources: string[]): Document | undefined {
  let best = '';
  let bestLength = 0;
  for (const source of sources) {
    if (!/"(?:articleBody|text)"/.test(source)) continue;
    for (const item of flattenGraph(parseLenient(source))) {
      if (!item || typeof item !== 'object') continue;
      const d = item as Record<string, unknown>;
      // (QAPage and the like hold their question under mainEntity.)
      const main = d.mainEntity && typeof d.mainEntity === 'object' ? (d.mainEntity as Record<string, unknown>) : d;
      let html: string;
      if (typesOf(main).some((t) => POSTING.test(t))) {
        const replies = [main.comment, main.suggestedAnswer, main.acceptedAnswer]
          .flat()
          .filter((c): c is Record<string, unknown> => !!c && typeof c === 'object');
        const title =
          typeof main.headline === 'string' ? main.headline : typeof main.name === 'string' ? main.name : '';
        html = (title ? `<h1>${esc(title)}</h1>` : '') + [main, ...replies].map(postHtml).filter(Boolean).join('<hr>');
      } else {
        const body = [main.articleBody, main.text].find((v): v is string => typeof v === 'string');
        html = body ? asHtml(body) : '';
      }
      const length = html.replace(/<[^>]*>/g, '').length;
      if (length > bestLength) [best, bestLength] = [html, length];
    }
  }
  return best ? parseHtml(`<body>${best}</body>`) : undefined;
}

/** Where a script hands data to the page: an assignment, a call, a push onto a queue. */
const DATA_START = /(?:=|\(|push\()\s*(?=[[{]\s*["[{\d])/g;
/** Lines of a React Server Components payload (Next.js's `self.__next_f.push([1, "…"])`): `id:json`. */
const RSC_LINE = /^[0-9a-f]{1,6}:(?=[[{"])/;

/** Keys whose strings are never prose (addresses, identifiers, styles, scripts). */
const NOT_PROSE_KEY =
  /^(?:url|href|src|srcset|image|images|icon|id|key|slug|path|as|type|typename|__typename|locale|class|classname|style|css|script|token|hash|query|variant|sku|mpn|gtin|color|code)$/i;

/** A string that reads as prose: words with spaces, a sentence's end, not a URL, code or data. */
function isProse(s: string): boolean {
  if (s.length < 60) return false;
  if (/^(?:https?:|\/|data:|\{|\[)/.test(s) || s.includes('":')) return false;
  const words = s.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
  const spaces = s.split(' ').length - 1;
  return words >= 10 && spaces >= 8 && /[.!?。！？]/.test(s) && !/[{};]\s*$/.test(s.trim());
}

/** A script's object literal as JSON: JavaScript's `undefined` (which JSON lacks) read as null. */
function parseState(text: string): unknown {
  return parseLenient(text) ?? parseLenient(text.replace(/([:,[]\s*)undefined(?=\s*[,}\]])/g, '$1null'));
}

/** The JSON value that starts at `from` (an object or array), by bracket matching; undefined when it is not one. */
function jsonAt(source: string, from: number): unknown {
  let depth = 0;
  let inString = false;
  for (let i = from; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (--depth === 0) return parseState(source.slice(from, i + 1));
    }
  }
  return undefined;
}

/**
 * What the page's server-rendered state says in prose, or undefined: the state of its
 * scripts — JSON data blocks (`__NEXT_DATA__` …), objects handed to the page by assignment
 * or call (`window.__STATE__ = {…}`, `queue.push({…})`), a React Server Components payload.
 * The longest body of markup in it stands for the page (a CMS's article body; the state
 * also holds teasers and comments); without one, the strings that read as sentences, in order.
 */
export function appStateContent(scripts: Element[]): Document | undefined {
  const markup: string[] = [];
  const prose: string[] = [];
  const seen = new Set<string>();
  let total = 0;
  const visit = (v: unknown, key: string, depth: number): void => {
    if (depth > 80 || total > 2_000_000) return;
    if (typeof v === 'string') {
      if (v.length < 60 || NOT_PROSE_KEY.test(key) || seen.has(v)) return;
      seen.add(v);
      total += v.length;
      if (RSC_LINE.test(v)) return readPayload(v, depth);
      if (MARKUP.test(v)) markup.push(v);
      else if (isProse(v)) prose.push(v);
    } else if (Array.isArray(v)) for (const x of v) visit(x, key, depth + 1);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, k, depth + 1);
  };
  const readPayload = (payload: string, depth: number) => {
    for (const line of payload.split('\n')) {
      const m = RSC_LINE.exec(line);
      if (m) visit(parseLenient(line.slice(m[0].length)), '', depth + 1);
    }
  };
  for (const el of scripts) {
    const type = (el.attribs.type ?? '').toLowerCase();
    const source = scriptSource(el);
    if (source.length < 200) continue;
    if (type === 'application/json' || el.attribs.id === '__NEXT_DATA__') visit(parseLenient(source), '', 0);
    else if (!type || type.includes('javascript') || type === 'module') {
      let tries = 0;
      for (const m of source.matchAll(DATA_START)) {
        if (++tries > 20) break;
        const at = m.index + m[0].length;
        visit(jsonAt(source, at), '', 0);
      }
    }
  }
  // Markup bodies compared by their text (the same body comes twice: as content and as a table of contents).
  const textOfMarkup = (h: string) => h.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ');
  let body = '';
  let bodyLength = 0;
  for (const h of markup) {
    const n = textOfMarkup(h).length;
    if (n > bodyLength) [body, bodyLength] = [h, n];
  }
  if (bodyLength >= 500) return parseHtml(`<body>${body}</body>`);
  const parts = [...markup, ...prose];
  return parts.length ? parseHtml(`<body>${parts.map(asHtml).join('')}</body>`) : undefined;
}
