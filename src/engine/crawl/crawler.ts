/**
 * The crawler: breadth-first from the start URL over one site, each canonical URL fetched
 * once, through the same guarded fetcher and document pipeline as scrape. A FIFO frontier
 * feeds a pool of workers (global and per-host concurrency, politeness delay, robots.txt
 * Crawl-delay); robots.txt and sitemaps are read while the start page loads; the whole
 * crawl is bounded by a page limit and a time budget.
 */
import { TrawlError, isTrawlError } from '../../errors.js';
import { processDocument } from '../document/process.js';
import type { DocumentProcessor, JobControl, PageExtraction, PooledOptions, Processed } from '../document/processor.js';
import type { CompiledSchema } from '../extract/schema.js';
import { ClearanceJar } from '../fetch/clearance.js';
import { fetchPage, releasePage, type Fetchers, type Page, type RenderMode } from '../fetch/page.js';
import type { ScrapeFormat } from '../scrape.js';
import { bareHost, canonicalParts, canonicalUrl, NOT_PAGES } from './canonical.js';
import { pathFilter } from './glob.js';
import { HostGate } from './host-gate.js';
import { isRichPage, pageBudget, scrapeCrawlPage, type CrawlPageOptions } from './rich-page.js';
import { ALLOW_ALL, loadRobots, type RobotsRules } from './robots.js';
import { readSitemaps } from './sitemap.js';

export interface CrawlOptions {
  url: string;
  /** Link depth followed; 0 = only the start page. @default 2 */
  maxDepth?: number;
  /** Pages returned at most. @default 10 */
  limit?: number;
  includePaths?: string[];
  excludePaths?: string[];
  /** Follow links to subdomains of the start host. @default false */
  allowSubdomains?: boolean;
  /** @default true */
  respectRobots?: boolean;
  /** Seed from robots.txt Sitemap lines and /sitemap.xml. @default true */
  useSitemap?: boolean;
  /** @default ['markdown']; a screenshot format takes one of each page (through scrape, see rich-page.ts) */
  formats?: ScrapeFormat[];
  schema?: CompiledSchema;
  /** @default true */
  onlyMainContent?: boolean;
  /** Pages fetched at once. @default 8 */
  concurrency?: number;
  /** Pages fetched at once from one host. @default concurrency */
  perHostConcurrency?: number;
  /** Minimum time between two requests to one host (robots Crawl-delay may raise it). @default 0 */
  delayMs?: number;
  /** Budget for the whole crawl. @default 60000 */
  timeoutMs?: number;
  /** Budget for one page. @default 15000 (30000 when pages are read in the browser) */
  pageTimeoutMs?: number;
  /** @default 'http' (crawls are many pages; 'auto' renders JavaScript shells) */
  render?: RenderMode;
  /** Browser-grade options for every page (headers, device, actions, cache …); `render` above applies too. */
  page?: CrawlPageOptions;
  /** Product token matched against robots.txt groups. @default 'trawl' */
  robotsAgent?: string;
  signal?: AbortSignal;
  onProgress?: (progress: { done: number; queued: number; errors: number }) => void;
}

export interface CrawledPage {
  url: string;
  depth: number;
  status_code: number;
  title: string | null;
  markdown?: string;
  html?: string;
  json?: Record<string, unknown>;
  links?: string[];
  /** With browser-grade options: the screenshot's URL, the actions' outputs, the cache state, warnings. */
  screenshot?: string;
  actions?: unknown;
  cache?: 'hit' | 'miss';
  cached_at?: string;
  warnings?: string[];
}

export interface CrawlResult {
  pages: CrawledPage[];
  total: number;
  truncated: boolean;
  errors: { url: string; error: string; detail?: string }[];
}

export { NOT_PAGES } from './canonical.js';

interface Item {
  url: string;
  depth: number;
  /** Link positions from the start page down to this one: pages of one depth are listed in
   * the order their parents were, then in link order, however the fetches interleave. */
  path: number[];
}

export async function crawl(fetchers: Fetchers, options: CrawlOptions): Promise<CrawlResult> {
  // A challenge cleared on one page is not met again on the crawl's next pages of that host.
  const jar = new ClearanceJar();
  const o = {
    maxDepth: options.maxDepth ?? 2,
    limit: options.limit ?? 10,
    // No more workers than the caller's fetch slots: the rest would only wait out their page budgets.
    concurrency: Math.max(1, Math.min(options.concurrency ?? 8, fetchers.slots?.limit ?? Infinity)),
    delayMs: options.delayMs ?? 0,
    timeoutMs: options.timeoutMs ?? 60_000,
    formats: new Set<ScrapeFormat>(options.formats?.length ? options.formats : ['markdown']),
    pageTimeoutMs: 0,
  };
  // Pages with browser-grade options are read by scrape() (its browser, files and cache).
  const pageOptions =
    options.render && options.render !== 'http' ? { ...options.page, render: options.render } : options.page;
  const rich = isRichPage(o.formats, pageOptions);
  o.pageTimeoutMs = options.pageTimeoutMs ?? pageBudget(o.formats, pageOptions);
  // The extractor's modules load only for a crawl that asks for JSON: a markdown crawl
  // whose pages go to document workers never loads them (nor the parser) on this thread.
  const extraction =
    o.formats.has('json') && options.schema
      ? (await import('../extract/index.js')).pageExtraction(options.schema)
      : undefined;
  const perHost = Math.max(1, options.perHostConcurrency ?? o.concurrency);
  const deadline = Date.now() + o.timeoutMs;
  const budget = new AbortController();
  const timer = setTimeout(
    () => budget.abort(new TrawlError('timeout', 'the crawl used its whole time budget')),
    o.timeoutMs,
  );
  const signal = options.signal ? AbortSignal.any([budget.signal, options.signal]) : budget.signal;
  const allowedPath = pathFilter(options.includePaths, options.excludePaths);
  const canon = canonicalUrl;

  const start = canon(options.url);
  if (!start) throw new TrawlError('invalid_request', 'url: must be an http or https URL');
  let siteHost = bareHost(new URL(start).hostname);
  const sameSite = (u: { hostname: string }) => {
    const h = bareHost(u.hostname);
    return h === siteHost || (!!options.allowSubdomains && h.endsWith(`.${siteHost}`));
  };

  const seen = new Set<string>([start]);
  const queue: Item[] = [{ url: start, depth: 0, path: [] }];
  const pages: (CrawledPage & { path: number[] })[] = [];
  const errors: CrawlResult['errors'] = [];
  let inflight = 0;

  const robotsByOrigin = new Map<string, Promise<RobotsRules>>();
  const robotsFor = (origin: string) => {
    if (options.respectRobots === false) return Promise.resolve(ALLOW_ALL);
    let p = robotsByOrigin.get(origin);
    if (!p) {
      p = loadRobots(fetchers, origin, options.robotsAgent ?? 'trawl', signal);
      robotsByOrigin.set(origin, p);
    }
    return p;
  };
  // Politeness per host: `perHost` pages at once, requests spaced by the delay (the jobs' gate too).
  const hosts = new HostGate(perHost);

  // Links repeat on every page (navigation, footers): each distinct link string is judged
  // once. Breadth-first order makes that safe — a later sighting is never shallower.
  const judged = new Set<string>();
  const enqueue = (raw: string, depth: number, parent: number[], index: number) => {
    if (depth > o.maxDepth || judged.has(raw)) return;
    judged.add(raw);
    const c = canonicalParts(raw);
    if (!c || seen.has(c.href)) return;
    if (!sameSite(c) || NOT_PAGES.test(c.pathname) || !allowedPath(c.pathname)) return;
    seen.add(c.href);
    queue.push({ url: c.href, depth, path: [...parent, index] });
  };

  // Sitemaps are read while the first pages load; their URLs join at depth 1.
  const startOrigin = new URL(start).origin;
  const sitemapSeeds =
    options.useSitemap !== false && o.maxDepth >= 1
      ? robotsFor(startOrigin).then((r) =>
          readSitemaps(fetchers.http, [...new Set([...r.sitemaps, `${startOrigin}/sitemap.xml`])], {
            signal,
            maxUrls: Math.max(o.limit * 5, 100),
            timeoutMs: o.pageTimeoutMs,
            fetchers,
          }),
        )
      : Promise.resolve([] as string[]);
  // Read only once the links run out: when the start page fails first (a refused address: its
  // robots.txt read rejects too), nothing awaits it, and an unheard rejection ends the process.
  sitemapSeeds.catch(() => undefined);
  let sitemapsMerged = options.useSitemap === false || o.maxDepth < 1;

  /** Whether the page's final URL keeps it in the crawl (on the site, not reached already); it counts as seen. */
  const arrived = (item: Item, url: string): boolean => {
    const final = new URL(url);
    if (item.depth === 0) siteHost = bareHost(final.hostname);
    if (!sameSite(final)) {
      errors.push({ url: item.url, error: 'off_site_redirect', detail: `redirected off the site to ${url}` });
      return false;
    }
    const finalCanon = canon(url);
    if (finalCanon && finalCanon !== item.url) {
      if (seen.has(finalCanon) && item.depth > 0) return false; // reached through a redirect already
      seen.add(finalCanon);
    }
    return true;
  };
  /** The page's rel=canonical URL on the site counts as seen. */
  const noteCanonical = (item: Item, url: string | null | undefined) => {
    const canonical = url && canon(url);
    if (canonical && canonical !== item.url && sameSite(new URL(canonical))) seen.add(canonical);
  };

  const processOne = async (item: Item) => {
    const u = new URL(item.url);
    const robots = await robotsFor(u.origin);
    if (!robots.allow(u.pathname + u.search)) {
      errors.push({ url: item.url, error: 'robots_disallowed', detail: 'robots.txt disallows this URL' });
      return;
    }
    const delay = Math.min(10_000, Math.max(o.delayMs, (robots.crawlDelaySeconds ?? 0) * 1000));
    const release = await hosts.enter(u.host, delay, signal);
    let page: Page | undefined;
    try {
      const timeoutMs = Math.max(1, Math.min(o.pageTimeoutMs, deadline - Date.now()));
      // The start page may move to another host (example.com → www.example.com); later
      // pages may only move within the site.
      const followRedirect = item.depth === 0 ? undefined : (next: URL) => sameSite(next);
      // A page at the depth limit has no links to follow: they are read only when asked for.
      const wantLinks = item.depth < o.maxDepth || o.formats.has('links');
      if (rich) {
        const r = await scrapeCrawlPage(fetchers, item.url, {
          formats: o.formats,
          schema: options.schema,
          onlyMainContent: options.onlyMainContent,
          page: pageOptions,
          startUrl: start,
          links: wantLinks,
          followRedirect,
          timeoutMs,
          signal,
        });
        if (!arrived(item, r.url) || !r.html) return;
        noteCanonical(item, r.canonical);
        const result = { url: r.url, depth: item.depth, status_code: r.status, title: r.title, path: item.path };
        if (pages.length < o.limit) pages.push({ ...result, ...r.fields });
        r.links.forEach((link, i) => enqueue(link, item.depth + 1, item.path, i));
        return;
      }
      page = await fetchPage(fetchers, item.url, {
        render: options.render ?? 'http',
        timeoutMs,
        signal,
        followRedirect,
        jar,
      });
      if (!arrived(item, page.url)) return;
      if (page.kind !== 'html') return; // non-HTML is skipped, not an error
      const pipeline: PooledOptions = {
        url: page.url,
        onlyMainContent: options.onlyMainContent ?? true,
        markdown: o.formats.has('markdown'),
        html: o.formats.has('html'),
        links: wantLinks,
      };
      const doc = await handOver(fetchers.documents, page, pipeline, extraction, { signal, deadline });
      const json = doc.extracted?.json;
      noteCanonical(item, doc.metadata.canonical_url);
      const result: CrawledPage & { path: number[] } = {
        url: page.url,
        depth: item.depth,
        status_code: page.status,
        title: doc.metadata.title,
        path: item.path,
      };
      if (o.formats.has('markdown')) result.markdown = doc.markdown ?? '';
      if (o.formats.has('html')) result.html = doc.html ?? '';
      if (o.formats.has('json')) result.json = json ?? options.schema?.empty();
      if (o.formats.has('links')) result.links = doc.links ?? [];
      // (The pipeline's results, extraction's too, never point into the page source: see processDocument.)
      if (pages.length < o.limit) pages.push(result);
      (doc.links ?? []).forEach((link, i) => enqueue(link, item.depth + 1, item.path, i));
    } catch (e) {
      if (item.depth === 0) throw e;
      // A page cut off by the crawl's own budget is not the page's fault: the crawl is truncated.
      if (signal.aborted || Date.now() >= deadline - 20) return;
      if (isTrawlError(e) && e.fields.redirect) {
        errors.push({
          url: item.url,
          error: 'off_site_redirect',
          detail: `redirected off the site to ${e.fields.redirect}`,
        });
        return;
      }
      errors.push({
        url: item.url,
        error: isTrawlError(e) ? e.code : 'fetch_failed',
        detail: isTrawlError(e) ? e.detail : (e as Error).message,
      });
    } finally {
      releasePage(page);
      release();
    }
  };

  try {
    // The start page first, alone: its failure fails the crawl, its redirect fixes the site.
    const first = queue.shift()!;
    await processOne(first);
    options.onProgress?.({ done: pages.length, queued: queue.length, errors: errors.length });
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const pump = () => {
        if (failed) return;
        // Sitemap URLs join once the links found so far are used up (they are extra seeds).
        if (!sitemapsMerged && queue.length === 0 && pages.length < o.limit) {
          sitemapsMerged = true;
          inflight++;
          sitemapSeeds.then(
            (urls) => {
              inflight--;
              // After every link of the start page.
              urls.forEach((s, i) => enqueue(s, 1, [Number.MAX_SAFE_INTEGER], i));
              pump();
            },
            () => {
              inflight--;
              pump();
            },
          );
          return;
        }
        while (!signal.aborted && inflight < o.concurrency && queue.length && pages.length + inflight < o.limit) {
          const item = queue.shift()!;
          inflight++;
          processOne(item)
            .catch((e) =>
              errors.push({
                url: item.url,
                error: isTrawlError(e) ? e.code : 'fetch_failed',
                detail: (e as Error).message,
              }),
            )
            .finally(() => {
              inflight--;
              options.onProgress?.({ done: pages.length, queued: queue.length, errors: errors.length });
              pump();
            });
        }
        if (inflight === 0 && (signal.aborted || !queue.length || pages.length >= o.limit)) resolve();
      };
      signal.addEventListener('abort', () => inflight === 0 && resolve(), { once: true });
      try {
        pump();
      } catch (e) {
        failed = true;
        reject(e);
      }
    });
  } finally {
    clearTimeout(timer);
  }
  const truncated =
    budget.signal.aborted || Date.now() >= deadline - 20 || (pages.length >= o.limit && queue.length > 0);
  if (options.signal?.aborted) throw new TrawlError('fetch_failed', 'the crawl was cancelled');
  pages.sort((a, b) => a.depth - b.depth || comparePaths(a.path, b.path));
  return { pages: pages.map(({ path: _path, ...p }) => p), total: pages.length, truncated, errors };
}

/**
 * Gives a page's source to the document pipeline and lets go of it, so that a page waiting
 * for a busy worker does not keep its HTML alive (and old enough to be promoted) until the
 * worker answers. No closure here, so nothing keeps `source` once the page is posted.
 */
function handOver(
  documents: DocumentProcessor | undefined,
  page: Page,
  options: PooledOptions,
  extraction: PageExtraction | undefined,
  control: JobControl,
): Promise<Processed> {
  const source = page.text ?? '';
  page.text = undefined;
  return processDocument(documents, source, options, extraction, control);
}

function comparePaths(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}
