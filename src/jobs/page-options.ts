/**
 * A job's page options as the request gave them and the job stores them (the API's names, JSON in
 * the jobs table), and their translation to the engine's: a batch page's scrape options
 * (`crawlPageOptions`), a crawl's scope for engine/crawl/crawl-page.ts (`crawlScope`).
 */
import type { Action } from '../engine/fetch/actions.js';
import type { Cookie, Location, Viewport } from '../engine/fetch/emulation.js';
import type { RenderMode } from '../engine/fetch/page.js';
import type { ScrapeFormat } from '../engine/scrape.js';
import type { CrawlPageOptions, CrawlScope, CrawlStores, LinkRules } from '../engine/crawl/index.js';

/** What every page of a job (crawl or batch) is read with, as the request gave it and the job stores it. */
export interface JobPageOptions {
  /** Screenshot formats too: each page through scrape (engine/crawl/rich-page.ts). */
  formats?: ScrapeFormat[];
  schema?: Record<string, unknown>;
  only_main_content?: boolean;
  /** Browser-grade options of every page (API.md section 9). */
  render?: RenderMode;
  wait_for?: string | number;
  screenshot_format?: 'png' | 'jpeg';
  viewport?: Viewport;
  actions?: Action[];
  headers?: Record<string, string>;
  cookies?: Cookie[];
  mobile?: boolean;
  location?: Location;
  max_age?: number;
  /** Scrape steps keep the page's HTML too (the Firecrawl surface's `actions.scrapes[].html`). */
  action_scrape_html?: boolean;
  /** The service's address as the job's creator reached it: screenshot URLs are made on it. */
  files_base?: string;
}

export interface CrawlJobOptions extends JobPageOptions {
  url: string;
  max_depth?: number;
  limit: number;
  include_paths?: string[];
  exclude_paths?: string[];
  allow_subdomains?: boolean;
  respect_robots?: boolean;
  use_sitemap?: boolean;
  /** Firecrawl-style rules (regexes, path depth, base path) from the /firecrawl surface. */
  link_rules?: LinkRules;
  /**
   * The host whose site the crawl keeps to, once its start page landed on another site (the start
   * URL's until then). The caller's headers and cookies stay the start URL's site's.
   */
  site?: string;
  /** Each page's time budget at most (a synchronous crawl's bounds the whole crawl, and so each page). */
  timeout_ms?: number;
}

/** The scrape options of a job's pages (crawl or batch), in the engine's names. */
export function crawlPageOptions(o: JobPageOptions, stores: CrawlStores = {}): CrawlPageOptions {
  return {
    render: o.render,
    waitFor: o.wait_for,
    screenshotFormat: o.screenshot_format,
    viewport: o.viewport,
    actions: o.actions,
    headers: o.headers,
    cookies: o.cookies,
    mobile: o.mobile,
    location: o.location,
    files: stores.files,
    cache: stores.cache,
    actionScrapeHtml: o.action_scrape_html,
  };
}

/** A crawl job's options as each of its pages is read with them, in the engine's names. */
export function crawlScope(o: CrawlJobOptions, stores: CrawlStores = {}): CrawlScope {
  return {
    startUrl: o.url,
    site: o.site,
    maxDepth: o.max_depth,
    limit: o.limit,
    includePaths: o.include_paths,
    excludePaths: o.exclude_paths,
    allowSubdomains: o.allow_subdomains,
    respectRobots: o.respect_robots,
    useSitemap: o.use_sitemap,
    linkRules: o.link_rules,
    formats: o.formats,
    onlyMainContent: o.only_main_content,
    page: crawlPageOptions(o, stores),
    timeoutMs: o.timeout_ms,
  };
}
