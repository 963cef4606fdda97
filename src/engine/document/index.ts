/**
 * The document pipeline: parse once, then hand the same tree to metadata, links, main
 * content, markdown and (through `onDocument`) extraction, in the order that lets the
 * main-content step prune the tree last.
 */
import render from 'dom-serializer';
import type { Document, ParentNode } from './dom.js';
import { absoluteUrl, baseUrlOf, elements, parseHtml } from './dom.js';
import { extractLinks } from './links.js';
import { bodyOf, isProductPage, selectMainContent } from './main-content.js';
import { toMarkdown } from './markdown.js';
import { extractMetadata, type PageMetadata } from './metadata.js';
import { detectPageType, mayBeThread, PageSignals, published, statesArticle, type PageType } from './page-type.js';
import { isScant, lettersUpTo, rescueContent, SCANT_LETTERS, type ContentSource } from './rescue.js';

export { parseHtml } from './dom.js';
export { toMarkdown } from './markdown.js';
export { selectMainContent } from './main-content.js';
export type { PageMetadata } from './metadata.js';
export type { ContentSource } from './rescue.js';
export type { PageType } from './page-type.js';

export interface DocumentOptions {
  /** Final URL of the page (after redirects); relative links resolve against it. */
  url: string;
  /** Keep only the article-like main content. @default true */
  onlyMainContent?: boolean;
  markdown?: boolean;
  html?: boolean;
  links?: boolean;
  /** Called with the untouched parsed tree before main-content pruning (extraction uses it). */
  onDocument?: (doc: Document, baseUrl: string) => void;
}

export interface DocumentResult {
  metadata: PageMetadata & {
    /** Where the content came from (rescue.ts): the main-content pick, or the fallback that had text. */
    content_source?: ContentSource;
    /** What kind of page it is, from its own markup and its structure (page-type.ts). */
    page_type?: PageType;
  };
  /** The content (markdown or html, as asked) holds almost no text: the page gave none to any step. */
  scant?: boolean;
  markdown?: string;
  html?: string;
  links?: string[];
}

export function processHtml(source: string, options: DocumentOptions): DocumentResult {
  const doc = parseHtml(source);
  const baseUrl = baseUrlOf(doc, options.url);
  const signals = new PageSignals();
  const metadata = extractMetadata(doc, baseUrl, signals);
  signals.ogType = metadata.meta['og:type'] ?? '';
  const result: DocumentResult = { metadata };
  if (options.links) result.links = extractLinks(doc, baseUrl);
  options.onDocument?.(doc, baseUrl);
  if (options.markdown === false && !options.html) {
    result.metadata.page_type = detectPageType(signals);
    return result;
  }
  const onlyMainContent = options.onlyMainContent ?? true;
  // (A page that never says "product" is none: the walk over its elements is skipped.)
  const product = onlyMainContent && source.includes('roduct') && isProductPage(doc);
  const contentOptions = {
    onlyMainContent,
    titles: [metadata.title, metadata.meta['og:title'], metadata.meta['twitter:title']],
    product,
    thread: mayBeThread(signals),
    items: !statesArticle(signals),
    // A page stating an article or its publication date is a story: its picture captions go.
    article: statesArticle(signals) || published(signals, metadata.meta),
    seen: { teaserLists: 0, posts: 0, text: 0, paras: 0 },
  };
  let main = selectMainContent(doc, contentOptions);
  result.metadata.page_type = detectPageType(signals, contentOptions.seen, metadata.meta);
  let from: ContentSource = 'main';
  // Almost nothing kept: the fallbacks, in steps (only such pages pay for them).
  const had = lettersUpTo(main, SCANT_LETTERS);
  if (had < SCANT_LETTERS) {
    const rescued = rescueContent(source, contentOptions, had, contentOptions.seen.text, signals);
    if (rescued) [main, from] = [rescued.root, rescued.source];
    // (The selection cut the page's chrome out of `doc`: what is left of its body is the page's own text.)
    else result.scant = isScant(main, had, bodyOf(doc));
  }
  result.metadata.content_source = from;
  if (options.markdown !== false) result.markdown = toMarkdown(main, { baseUrl });
  if (options.html) result.html = cleanHtml(main, baseUrl);
  return result;
}

/** Serialise the selected content with absolute link and image URLs. */
function cleanHtml(main: ParentNode, baseUrl: string): string {
  for (const el of elements(main)) {
    for (const a of ['href', 'src'] as const) {
      const v = el.attribs[a];
      if (v === undefined) continue;
      const abs = absoluteUrl(v, baseUrl);
      if (abs) el.attribs[a] = abs;
      else delete el.attribs[a];
    }
    delete el.attribs.style;
    for (const k of Object.keys(el.attribs)) if (k.startsWith('on')) delete el.attribs[k];
  }
  return render(main.children, { decodeEntities: true, encodeEntities: 'utf8' }).trim();
}
