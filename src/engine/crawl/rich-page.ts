/**
 * A crawled page with browser-grade options (API.md section 9): a screenshot, actions, a render
 * mode, headers and cookies, a device or a locale, the result cache. Such a page is read by
 * scrape() itself — the same browser, files and cache as /v1/scrape — asked for its links too when
 * the crawl goes on from it, and kept to the crawl's site by the redirect rule the caller gives.
 * A page without these options stays on the crawl's own lighter path (fetch + document pipeline).
 */
import type { CompiledSchema } from '../extract/schema.js';
import type { ClearanceJar } from '../fetch/clearance.js';
import type { Fetchers, RenderMode } from '../fetch/page.js';
import { siteOf } from '../fetch/site.js';
import { needsBrowser, scrape, type ScrapeFormat, type ScrapeOptions } from '../scrape.js';

/** The options of scrape a crawl passes to each of its pages. */
export type CrawlPageOptions = Pick<
  ScrapeOptions,
  | 'render'
  | 'waitFor'
  | 'screenshotFormat'
  | 'viewport'
  | 'mobile'
  | 'location'
  | 'headers'
  | 'cookies'
  | 'actions'
  | 'files'
  | 'cache'
  | 'actionScrapeHtml'
>;

/** A crawled page's budget over HTTP, and in the browser (loading, settling, actions, screenshot). */
export const PAGE_MS = 15_000;
export const BROWSER_PAGE_MS = 30_000;

/** Whether the page needs scrape() rather than the crawl's plain fetch. */
export function isRichPage(formats: Iterable<ScrapeFormat>, page: CrawlPageOptions | undefined): boolean {
  if ([...formats].some((f) => f.startsWith('screenshot'))) return true;
  if (!page) return false;
  const { files: _files, actionScrapeHtml: _html, render, ...rest } = page;
  return (
    (render !== undefined && render !== 'http') ||
    Object.values(rest).some((v) => v !== undefined && v !== false && !(Array.isArray(v) && !v.length))
  );
}

/** The time a page of this crawl may take. */
export function pageBudget(formats: Iterable<ScrapeFormat>, page: CrawlPageOptions | undefined): number {
  const f = [...formats];
  return needsBrowser({ formats: f, actions: page?.actions, waitFor: page?.waitFor, render: page?.render }) ||
    page?.render === 'browser'
    ? BROWSER_PAGE_MS
    : PAGE_MS;
}

export interface RichPage {
  /** Where the page ended (after redirects). */
  url: string;
  status: number;
  title: string | null;
  canonical?: string | null;
  /** HTML pages are crawled; others (a PDF, text) are skipped or fail as the crawl decides. */
  html: boolean;
  contentType: string;
  /** Every link of the page (asked for when the crawl goes on from it). */
  links: string[];
  /** The page's fields in the crawl page's shape: formats asked, screenshot, actions, cache state, warnings. */
  fields: Record<string, unknown>;
}

export async function scrapeCrawlPage(
  fetchers: Fetchers,
  url: string,
  o: {
    /** The formats asked (resolved by the crawl: never empty). */
    formats: Set<ScrapeFormat>;
    schema?: CompiledSchema;
    onlyMainContent?: boolean;
    page?: CrawlPageOptions;
    /** The crawl's start URL: the caller's headers and cookies are for its site only. */
    startUrl: string;
    /** Read the page's links (the crawl goes on from it). */
    links: boolean;
    followRedirect?: (next: URL) => boolean | Promise<boolean>;
    timeoutMs: number;
    signal?: AbortSignal;
    clearance?: ClearanceJar;
  },
): Promise<RichPage> {
  const asked = o.formats;
  const formats = new Set(asked);
  if (o.links) formats.add('links');
  // Crawls read over HTTP unless told otherwise — or unless a screenshot or actions need the browser.
  const browser = needsBrowser({ formats: [...asked], actions: o.page?.actions, waitFor: o.page?.waitFor });
  const render: RenderMode = o.page?.render ?? (browser ? 'browser' : 'http');
  // A crawl whose start page redirected to another site goes on there, without the caller's
  // headers and cookies (scrape would send them to each page's own site).
  const own = siteOf(o.startUrl)(url);
  const r = await scrape(fetchers, {
    ...o.page,
    ...(own ? {} : { headers: undefined, cookies: undefined }),
    url,
    formats: [...formats],
    schema: o.schema,
    onlyMainContent: o.onlyMainContent,
    render,
    timeoutMs: o.timeoutMs,
    signal: o.signal,
    followRedirect: o.followRedirect,
    clearance: o.clearance,
  });
  const ct = r.metadata.content_type.toLowerCase();
  const fields: Record<string, unknown> = {};
  if (asked.has('markdown')) fields.markdown = r.markdown ?? '';
  if (asked.has('html')) fields.html = r.html ?? '';
  if (asked.has('json')) fields.json = r.json ?? o.schema?.empty();
  if (asked.has('links')) fields.links = r.links ?? [];
  if (r.screenshot) fields.screenshot = r.screenshot;
  if (r.actions) fields.actions = r.actions;
  if (r.metadata.cache) fields.cache = r.metadata.cache;
  if (r.metadata.cached_at) fields.cached_at = r.metadata.cached_at;
  if (r.warnings?.length) fields.warnings = r.warnings;
  return {
    url: r.url,
    status: r.metadata.status_code,
    title: r.metadata.title,
    canonical: r.metadata.canonical_url,
    html: r.metadata.pages === undefined && (ct === 'text/html' || ct === 'application/xhtml+xml'),
    contentType: r.metadata.content_type,
    links: r.links ?? [],
    fields,
  };
}
