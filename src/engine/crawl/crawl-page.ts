/**
 * One page of a crawl over a frontier (./frontier.ts): robots.txt, the host's turn, fetch
 * (redirects kept on the site; one to a URL another page has in hand is not followed), the
 * document pipeline with the page's links, and the links (and, for the start page, the sitemaps)
 * to admit at the next depth. The frontier, the seen set and the counts are the caller's (the
 * store's for jobs: jobs/runner.ts): this holds nothing of the crawl between pages.
 */
import { isTrawlError } from '../../errors.js';
import type { CompiledSchema } from '../extract/schema.js';
import type { ClearanceJar } from '../fetch/clearance.js';
import { fetchPage, type Fetchers } from '../fetch/page.js';
import { documentFromPage, type FileSink, type Format, type ScrapeCache, type ScrapeFormat } from '../scrape.js';
import { bareHost, canonicalParts, canonicalUrl, NOT_PAGES, siteMatcher } from './canonical.js';
import type { Discovered, Frontier } from './frontier.js';
import { pathFilter } from './glob.js';
import { hostTurn, type Gate } from './host-gate.js';
import { linkFilter, type LinkRules } from './link-rules.js';
import { isRichPage, pageBudget, scrapeCrawlPage, type CrawlPageOptions } from './rich-page.js';
import { loadRobots, type RobotsRules } from './robots.js';
import { readSitemaps } from './sitemap.js';

/** Where a crawl job's screenshots go and its view of the result cache (the runner makes them per account). */
export interface CrawlStores {
  files?: FileSink;
  cache?: ScrapeCache;
}

/** A crawl as each of its pages needs it, in the engine's names (jobs/page-options.ts makes it from a job's). */
export interface CrawlScope {
  /** Where the crawl started: its site, until the start page lands on another. */
  startUrl: string;
  /** The host whose site the crawl keeps to, once its start page landed on another site. */
  site?: string;
  /** Link depth followed; 0 = only the start page. @default 2 */
  maxDepth?: number;
  /** Pages at most (bounds the sitemap read). */
  limit: number;
  includePaths?: string[];
  excludePaths?: string[];
  allowSubdomains?: boolean;
  /** @default true */
  respectRobots?: boolean;
  /** @default true */
  useSitemap?: boolean;
  /** Firecrawl-style rules (regexes, path depth, base path). */
  linkRules?: LinkRules;
  /** @default ['markdown'] (with a schema: markdown and json) */
  formats?: ScrapeFormat[];
  /** @default true */
  onlyMainContent?: boolean;
  /** Browser-grade options of every page, its screenshot sink and cache view. */
  page: CrawlPageOptions;
  /** Each page's time budget at most. */
  timeoutMs?: number;
}

/** One page of a crawl to read, and what it is read with. */
export interface CrawlPageRequest {
  fetchers: Fetchers;
  item: { url: string; depth: number };
  crawl: CrawlScope;
  schema?: CompiledSchema;
  robots: RobotsCache;
  hosts: Gate;
  /** Asked once the host's turn comes: no when the crawl was cancelled meanwhile. */
  wanted?: () => Promise<boolean>;
  frontier?: Frontier;
  /** The job's clearance cookies: one challenge per host and job, not one per page. */
  clearance?: ClearanceJar;
}

export interface ItemOutcome {
  page: Record<string, unknown>;
  failed: boolean;
  discovered: Discovered[];
  /** The canonical URL the page was fetched from, when a redirect moved it off the item's URL. */
  final?: string;
  /** The start page landed on another site: the crawl's site from now on (CrawlJobOptions.site). */
  site?: string;
}

const PAGE_TIMEOUT_MS = 15_000;

/** robots.txt per origin, shared by the items of every crawl in this process (bounded). */
export class RobotsCache {
  readonly #rules = new Map<string, Promise<RobotsRules>>();
  get(fetchers: Fetchers, origin: string): Promise<RobotsRules> {
    let p = this.#rules.get(origin);
    if (!p) {
      if (this.#rules.size >= 1000) this.#rules.clear();
      p = loadRobots(fetchers, origin, 'trawl', AbortSignal.timeout(PAGE_TIMEOUT_MS));
      p.catch(() => this.#rules.delete(origin));
      this.#rules.set(origin, p);
    }
    return p;
  }
}

/** The page's outcome; undefined when `wanted` said no once its host's turn came (its job was cancelled). */
export async function crawlPage(r: CrawlPageRequest): Promise<ItemOutcome | undefined> {
  const { fetchers, item, crawl: o, schema, robots, hosts, wanted } = r;
  const taken = r.frontier?.taken;
  const maxDepth = o.maxDepth ?? 2;
  const formats = new Set<ScrapeFormat>(o.formats?.length ? o.formats : schema ? ['markdown', 'json'] : ['markdown']);
  const pageOptions = o.page;
  const rich = isRichPage(formats, pageOptions);
  const timeoutMs = Math.min(pageBudget(formats, pageOptions), o.timeoutMs ?? Infinity);
  const sameSite = siteMatcher(o.site ?? new URL(o.startUrl).hostname, o.allowSubdomains);
  const allowedPath = pathFilter(o.includePaths, o.excludePaths);
  const allowedLink = linkFilter(o.linkRules);
  const fail = (error: string, detail: string): ItemOutcome => ({
    page: { url: item.url, depth: item.depth, error, detail },
    failed: true,
    discovered: [],
  });
  const u = new URL(item.url);
  const rules = o.respectRobots === false ? undefined : await robots.get(fetchers, u.origin);
  if (rules && !rules.allow(u.pathname + u.search)) return fail('robots_disallowed', 'robots.txt disallows this URL');
  // Polite per host: a cap on pages at once, and robots' Crawl-delay between requests.
  const leave = await hostTurn(hosts, u.host, (rules?.crawlDelaySeconds ?? 0) * 1000, wanted);
  if (!leave) return undefined;
  let left = false;
  const away = () => {
    if (!left) leave();
    left = true;
  };
  const wantLinks = item.depth < maxDepth;
  // The start page may move to another host (example.com → www.example.com); later pages may only move within the site.
  // A redirect to a URL another item already fetches is not followed: that item answers it, so the
  // site sees one request (this item is dropped when written, as any page whose final URL is taken).
  let elsewhere: string | undefined;
  const followRedirect =
    item.depth === 0
      ? undefined
      : async (next: URL) => {
          if (!sameSite(next)) return false;
          const at = canonicalUrl(next.href);
          if (!at || at === item.url || !taken || !(await taken(at, item.depth).catch(() => false))) return true;
          elsewhere = at;
          return false;
        };
  /** A page that ended off the site fails (a start page may move to its bare or www. host). */
  const offSite = (at: string) => {
    const final = new URL(at);
    const site = item.depth === 0 ? siteMatcher(final.hostname, o.allowSubdomains) : sameSite;
    return !site(final) && !(item.depth === 0 && bareHost(final.hostname) === bareHost(u.hostname));
  };
  const how: ReadOptions = {
    formats,
    schema,
    o,
    wantLinks,
    followRedirect,
    offSite,
    timeoutMs,
    clearance: r.clearance,
    done: away,
  };
  let read: Read | Failure;
  try {
    read = rich ? await readRich(fetchers, item, how, pageOptions) : await readPlain(fetchers, item, how);
  } catch (e) {
    // Never written: the store drops a page whose final URL another item has in hand (and such
    // an item never goes back to queued, where this page would take its place).
    if (elsewhere)
      return { page: { url: elsewhere, depth: item.depth }, failed: false, discovered: [], final: elsewhere };
    // A redirect off the site was not followed: the same error as the synchronous crawl's.
    if (isTrawlError(e) && typeof e.fields.redirect === 'string')
      return fail('off_site_redirect', `redirected off the site to ${e.fields.redirect}`);
    throw e;
  } finally {
    away();
  }
  if ('error' in read) return fail(read.error, read.detail);
  const final = new URL(read.url);
  const site = item.depth === 0 ? siteMatcher(final.hostname, o.allowSubdomains) : sameSite;
  const result = read.result;
  const discovered: Discovered[] = [];
  if (wantLinks) {
    // (The start page's robots rules were read above; its final origin may differ after a redirect.)
    const keep = (raw: string) => {
      const c = canonicalParts(raw);
      return c && site(c) && !NOT_PAGES.test(c.pathname) && allowedPath(c.pathname) && allowedLink(c)
        ? c.href
        : undefined;
    };
    discovered.push({
      urls: [...new Set(read.links.map(keep).filter((x): x is string => !!x))],
      depth: item.depth + 1,
    });
    // The start page's sitemaps join at depth 1, after its links.
    if (item.depth === 0 && o.useSitemap !== false) {
      const finalRules =
        o.respectRobots === false ? undefined : await robots.get(fetchers, final.origin).catch(() => undefined);
      const urls = await readSitemaps(
        fetchers.http,
        [...new Set([...(finalRules?.sitemaps ?? []), `${final.origin}/sitemap.xml`])],
        { maxUrls: Math.min(o.limit * 2, 50_000), timeoutMs: PAGE_TIMEOUT_MS, fetchers },
      ).catch(() => []);
      discovered.push({ urls: [...new Set(urls.map(keep).filter((x): x is string => !!x))], depth: 1 });
    }
  }
  const moved = canonicalUrl(read.url);
  // A start page that moved to another site takes the crawl with it, as a synchronous crawl's does.
  const landed = item.depth === 0 && bareHost(final.hostname) !== bareHost(u.hostname);
  return {
    page: result,
    failed: false,
    discovered,
    ...(moved && moved !== item.url ? { final: moved } : {}),
    ...(landed ? { site: final.hostname } : {}),
  };
}

interface Read {
  /** Where the page ended. */
  url: string;
  /** Every link of the page (when the crawl goes on from it). */
  links: string[];
  /** The job's page. */
  result: Record<string, unknown>;
}
type Failure = { error: string; detail: string };

interface ReadOptions {
  formats: Set<ScrapeFormat>;
  schema: CompiledSchema | undefined;
  o: CrawlScope;
  wantLinks: boolean;
  followRedirect?: (next: URL) => boolean | Promise<boolean>;
  offSite(at: string): boolean;
  timeoutMs: number;
  clearance?: ClearanceJar;
  /** Called once the page is fetched: its host's turn is over. */
  done(): void;
}

const offSiteFailure = (at: string): Failure => ({
  error: 'off_site_redirect',
  detail: `redirected off the site to ${at}`,
});
const notHtml = (at: string, type: string): Failure => ({
  error: 'not_html',
  detail: `${at} is ${type || 'not HTML'}; a crawl keeps HTML pages only`,
});

/** Fetched over HTTP, then through the document pipeline (the host's turn ends once the page is in). */
async function readPlain(
  fetchers: Fetchers,
  item: { url: string; depth: number },
  h: ReadOptions,
): Promise<Read | Failure> {
  const page = await fetchPage(fetchers, item.url, {
    render: 'http',
    timeoutMs: h.timeoutMs,
    followRedirect: h.followRedirect,
    jar: h.clearance,
  });
  h.done();
  if (h.offSite(page.url)) {
    page.lease?.release();
    return offSiteFailure(page.url);
  }
  if (page.kind !== 'html') {
    page.lease?.release();
    return notHtml(page.url, page.contentType);
  }
  const doc = await documentFromPage(
    page,
    new Set(
      [...h.formats, ...(h.wantLinks ? (['links'] as const) : [])].filter(
        (f): f is Format => !f.startsWith('screenshot'),
      ),
    ),
    { onlyMainContent: h.o.onlyMainContent ?? true, schema: h.schema, documents: fetchers.documents },
  );
  const result: Record<string, unknown> = {
    url: page.url,
    depth: item.depth,
    status_code: doc.metadata.status_code,
    title: doc.metadata.title,
  };
  if (h.formats.has('markdown')) result.markdown = doc.markdown ?? '';
  if (h.formats.has('html')) result.html = doc.html ?? '';
  if (h.formats.has('json')) result.json = doc.json ?? h.schema?.empty();
  if (h.formats.has('links')) result.links = doc.links ?? [];
  return { url: page.url, links: doc.links ?? [], result };
}

/** Through scrape(): the browser, screenshots, actions, headers and the cache, as /v1/scrape reads a page. */
async function readRich(
  fetchers: Fetchers,
  item: { url: string; depth: number },
  h: ReadOptions,
  page: CrawlPageOptions,
): Promise<Read | Failure> {
  const r = await scrapeCrawlPage(fetchers, item.url, {
    formats: h.formats,
    schema: h.schema,
    onlyMainContent: h.o.onlyMainContent,
    page,
    startUrl: h.o.startUrl,
    links: h.wantLinks,
    followRedirect: h.followRedirect,
    timeoutMs: h.timeoutMs,
    clearance: h.clearance,
  });
  if (h.offSite(r.url)) return offSiteFailure(r.url);
  if (!r.html) return notHtml(r.url, r.contentType);
  return {
    url: r.url,
    links: r.links,
    result: { url: r.url, depth: item.depth, status_code: r.status, title: r.title, ...r.fields },
  };
}
