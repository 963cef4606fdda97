/**
 * One page of an async crawl: robots.txt, fetch (redirects kept on the site), the document
 * pipeline with the page's links, and the links (and, for the start page, the sitemaps) to admit
 * at the next depth. The frontier, the seen set and the counts are the store's (repos/jobs.ts):
 * this holds nothing of the crawl between pages.
 */
import { documentFromPage, type Engine, type Format } from '../engine/index.js';
import { bareHost, canonicalParts, canonicalUrl, siteMatcher } from '../engine/crawl/canonical.js';
import { NOT_PAGES } from '../engine/crawl/crawler.js';
import { pathFilter } from '../engine/crawl/glob.js';
import { linkFilter, type LinkRules } from '../engine/crawl/link-rules.js';
import { loadRobots, type RobotsRules } from '../engine/crawl/robots.js';
import { readSitemaps } from '../engine/crawl/sitemap.js';
import type { CompiledSchema } from '../engine/extract/schema.js';
import { isTrawlError } from '../errors.js';
import { fetchPage } from '../engine/fetch/page.js';
import type { Discovered } from '../store/repos/jobs.js';
import type { Gate } from './host-gate.js';

/** What an async crawl job stores as its options (the request's, validated). */
export interface CrawlJobOptions {
  url: string;
  max_depth?: number;
  limit: number;
  include_paths?: string[];
  exclude_paths?: string[];
  allow_subdomains?: boolean;
  respect_robots?: boolean;
  use_sitemap?: boolean;
  formats?: Format[];
  schema?: Record<string, unknown>;
  only_main_content?: boolean;
  /** Firecrawl-style rules (regexes, path depth, base path) from the /firecrawl surface. */
  link_rules?: LinkRules;
}

export interface ItemOutcome {
  page: Record<string, unknown>;
  failed: boolean;
  discovered: Discovered[];
  /** The canonical URL the page was fetched from, when a redirect moved it off the item's URL. */
  final?: string;
}

const PAGE_TIMEOUT_MS = 15_000;

/** robots.txt per origin, shared by the items of every crawl in this process (bounded). */
export class RobotsCache {
  readonly #rules = new Map<string, Promise<RobotsRules>>();
  get(engine: Engine, origin: string): Promise<RobotsRules> {
    let p = this.#rules.get(origin);
    if (!p) {
      if (this.#rules.size >= 1000) this.#rules.clear();
      p = loadRobots(engine, origin, 'trawl', AbortSignal.timeout(PAGE_TIMEOUT_MS));
      p.catch(() => this.#rules.delete(origin));
      this.#rules.set(origin, p);
    }
    return p;
  }
}

/** The page's outcome; undefined when `wanted` said no once its host's turn came (its job was cancelled). */
export async function crawlItem(
  engine: Engine,
  item: { url: string; depth: number },
  o: CrawlJobOptions,
  schema: CompiledSchema | undefined,
  robots: RobotsCache,
  hosts: Gate,
  wanted?: () => Promise<boolean>,
): Promise<ItemOutcome | undefined> {
  const maxDepth = o.max_depth ?? 2;
  const formats = new Set<Format>(o.formats?.length ? o.formats : schema ? ['markdown', 'json'] : ['markdown']);
  const sameSite = siteMatcher(new URL(o.url).hostname, o.allow_subdomains);
  const allowedPath = pathFilter(o.include_paths, o.exclude_paths);
  const allowedLink = linkFilter(o.link_rules);
  const fail = (error: string, detail: string): ItemOutcome => ({
    page: { url: item.url, depth: item.depth, error, detail },
    failed: true,
    discovered: [],
  });
  const u = new URL(item.url);
  const rules = o.respect_robots === false ? undefined : await robots.get(engine, u.origin);
  if (rules && !rules.allow(u.pathname + u.search)) return fail('robots_disallowed', 'robots.txt disallows this URL');
  // Polite per host: a cap on pages at once, and robots' Crawl-delay between requests.
  const leave = await hosts.enter(u.host, (rules?.crawlDelaySeconds ?? 0) * 1000);
  let go = false;
  try {
    go = !wanted || (await wanted());
  } finally {
    if (!go) leave();
  }
  if (!go) return undefined;
  let page: Awaited<ReturnType<typeof fetchPage>>;
  try {
    page = await fetchPage(engine, item.url, {
      render: 'http',
      timeoutMs: PAGE_TIMEOUT_MS,
      // The start page may move to another host (example.com → www.example.com); later pages may only move within the site.
      followRedirect: item.depth === 0 ? undefined : (next) => sameSite(next),
    });
  } catch (e) {
    // A redirect off the site was not followed: the same error as the synchronous crawl's.
    if (isTrawlError(e) && typeof e.fields.redirect === 'string')
      return fail('off_site_redirect', `redirected off the site to ${e.fields.redirect}`);
    throw e;
  } finally {
    leave();
  }
  const final = new URL(page.url);
  const site = item.depth === 0 ? siteMatcher(final.hostname, o.allow_subdomains) : sameSite;
  if (!site(final) && !(item.depth === 0 && bareHost(final.hostname) === bareHost(u.hostname))) {
    page.lease?.release();
    return fail('off_site_redirect', `redirected off the site to ${page.url}`);
  }
  if (page.kind !== 'html') {
    page.lease?.release();
    return fail('not_html', `${page.url} is ${page.contentType || 'not HTML'}; a crawl keeps HTML pages only`);
  }
  const wantLinks = item.depth < maxDepth;
  const doc = await documentFromPage(page, new Set([...formats, ...(wantLinks ? (['links'] as const) : [])]), {
    onlyMainContent: o.only_main_content ?? true,
    schema,
    documents: engine.documents,
  });
  const result: Record<string, unknown> = {
    url: page.url,
    depth: item.depth,
    status_code: doc.metadata.status_code,
    title: doc.metadata.title,
  };
  if (formats.has('markdown')) result.markdown = doc.markdown ?? '';
  if (formats.has('html')) result.html = doc.html ?? '';
  if (formats.has('json')) result.json = doc.json ?? schema?.empty();
  if (formats.has('links')) result.links = doc.links ?? [];
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
      urls: [...new Set((doc.links ?? []).map(keep).filter((x): x is string => !!x))],
      depth: item.depth + 1,
    });
    // The start page's sitemaps join at depth 1, after its links.
    if (item.depth === 0 && o.use_sitemap !== false) {
      const finalRules =
        o.respect_robots === false ? undefined : await robots.get(engine, final.origin).catch(() => undefined);
      const urls = await readSitemaps(
        engine.http,
        [...new Set([...(finalRules?.sitemaps ?? []), `${final.origin}/sitemap.xml`])],
        { maxUrls: Math.min(o.limit * 2, 50_000), timeoutMs: PAGE_TIMEOUT_MS, fetchers: engine },
      ).catch(() => []);
      discovered.push({ urls: [...new Set(urls.map(keep).filter((x): x is string => !!x))], depth: 1 });
    }
  }
  const moved = canonicalUrl(page.url);
  return { page: result, failed: false, discovered, ...(moved && moved !== item.url ? { final: moved } : {}) };
}
