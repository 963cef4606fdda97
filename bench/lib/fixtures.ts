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
