import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { decodeBody } from '../../src/engine/fetch/charset.js';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** ../shared/fixtures beside the checkout (never copied into the repo). */
export const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/fixtures');

export function requireFixtures(sub: string): string {
  const dir = join(FIXTURES, sub);
  if (!existsSync(dir)) {
    console.error(`skipped: fixture folder ${dir} is absent (it lives in shared/fixtures beside the checkout)`);
    process.exit(0);
  }
  return dir;
}

export interface ContentPage {
  id: string;
  html: string;
  url: string;
  articleBody?: string;
}

/**
 * A saved page's text as the service would read it off the wire: BOM, then `<meta charset>`,
 * then UTF-8 with a windows-1252 fallback (fetch/charset.ts). Reading every file as UTF-8 turned
 * the Latin-1 pages of the corpora into U+FFFD soup, which no extractor can match snippets in.
 */
export function readHtml(path: string): string {
  const buf = readFileSync(path);
  return decodeBody(path.endsWith('.gz') ? gunzipSync(buf) : buf).text;
}

export function aebPages(): ContentPage[] {
  const dir = requireFixtures('content/scrapinghub-aeb');
  return readdirSync(dir)
    .sort()
    .map((id) => {
      const expected = JSON.parse(readFileSync(join(dir, id, 'expected.json'), 'utf8'));
      return { id, html: readHtml(join(dir, id, 'source.html')), url: expected.url, articleBody: expected.articleBody };
    });
}

export function readabilityPages(): ContentPage[] {
  const dir = requireFixtures('content/readability');
  return readdirSync(dir)
    .sort()
    .map((id) => ({ id, html: readHtml(join(dir, id, 'source.html')), url: `http://fakehost/test/${id}/` }));
}

export function allContentPages(): ContentPage[] {
  return [...aebPages(), ...readabilityPages()];
}

export interface SnippetPage extends ContentPage {
  /** Text that must appear in the main content. */
  with: string[];
  /** Text that must not. */
  without: string[];
}

/** trafilatura's evaluation corpus: pages with snippets that must and must not be kept. */
export function trafilaturaPages(): SnippetPage[] {
  const dir = requireFixtures('content/trafilatura-eval');
  return readdirSync(dir)
    .sort()
    .map((id) => {
      const expected = JSON.parse(readFileSync(join(dir, id, 'expected.json'), 'utf8'));
      // Some entries name a file, not a URL ("hard::site-page.html"): any base URL will do.
      const url = /^https?:\/\//.test(expected.url)
        ? expected.url
        : `http://fakehost/${encodeURIComponent(expected.file ?? id)}`;
      return {
        id,
        html: readHtml(join(dir, id, 'source.html.gz')),
        url,
        with: expected.with ?? [],
        without: expected.without ?? [],
      };
    });
}

/** The page kinds of the modern-pages set (its one "blog" page counts as an article). */
export const PAGE_TYPES = ['article', 'forum', 'service', 'product', 'documentation', 'collection', 'listing'] as const;
export type PageType = (typeof PAGE_TYPES)[number];

export interface ModernPage extends SnippetPage {
  articleBody: string;
  pageType: PageType;
  /** The set's own flag: its makers marked this page's truth as needing review. */
  truthNeedsReview: boolean;
}

/**
 * Modern pages of every kind (content/wceb-2026): the page, its main content as text, its
 * with/without snippets and its kind. Some pages appear twice (two captures of one URL): the
 * eval splits them by URL so both copies fall in one half.
 */
export function modernPages(): ModernPage[] {
  const dir = requireFixtures('content/wceb-2026');
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((id) => {
      const e = JSON.parse(readFileSync(join(dir, id, 'expected.json'), 'utf8'));
      const type = e.page_type === 'blog' ? 'article' : e.page_type;
      if (!(PAGE_TYPES as readonly string[]).includes(type)) throw new Error(`${id}: page_type ${e.page_type}`);
      return {
        id,
        html: readHtml(join(dir, id, 'source.html.gz')),
        url: e.url,
        articleBody: e.articleBody ?? '',
        with: e.with ?? [],
        without: e.without ?? [],
        pageType: type as PageType,
        truthNeedsReview: e.truth_needs_review === true,
      };
    });
}
