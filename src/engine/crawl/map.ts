/**
 * Map: a site's URLs without their content — from its sitemaps (robots.txt `Sitemap:` lines,
 * /sitemap.xml, indexes followed, gzip) and a fast harvest of the links on its start page and a
 * few pages it links to, deduplicated by canonical URL, same site only. With `search`, URLs are
 * ranked by BM25 over their path words and link text, the matching first.
 */
import { TrawlError } from '../../errors.js';
import { parseHtml, textOf, elements, absoluteUrl, collapse } from '../document/dom.js';
import { fetchPage, releasePage, type Fetchers } from '../fetch/page.js';
import { Bm25 } from '../search/bm25.js';
import { canonicalParts, canonicalUrl, siteMatcher } from './canonical.js';
import { loadRobots } from './robots.js';
import { readSitemaps } from './sitemap.js';

export interface MapOptions {
  url: string;
  /** Most links answered. @default 1000 */
  limit?: number;
  /** Text that ranks the URLs (matching ones first). */
  search?: string;
  /** @default true */
  useSitemap?: boolean;
  allowSubdomains?: boolean;
  /** The whole map's time budget. @default 30000 */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface MappedLink {
  url: string;
  title?: string;
}

export interface MapResult {
  links: MappedLink[];
  /** Distinct same-site URLs found (before `limit`). */
  total: number;
}

/** Pages whose links are harvested besides the start page (the first ones it links to). */
const HARVEST_PAGES = 10;
/** URLs collected before ranking, whatever the limit (ranking needs candidates beyond it). */
const MAX_COLLECTED = 60_000;
const ASSET = /\.(?:jpe?g|png|gif|webp|avif|svg|ico|css|js|mjs|json|xml|rss|atom|woff2?|ttf|zip|gz|pdf|mp[34]|webm)$/i;

export async function mapSite(fetchers: Fetchers, options: MapOptions): Promise<MapResult> {
  const limit = options.limit ?? 1000;
  const start = canonicalUrl(options.url);
  if (!start) throw new TrawlError('invalid_request', 'url: must be an http or https URL');
  const origin = new URL(start).origin;
  const sameSite = siteMatcher(new URL(start).hostname, options.allowSubdomains);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const budget = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, budget]) : budget;

  const found = new Map<string, MappedLink>();
  const add = (raw: string, title?: string) => {
    if (found.size >= MAX_COLLECTED) return;
    const c = canonicalParts(raw);
    if (!c || !sameSite(c) || ASSET.test(c.pathname)) return;
    const known = found.get(c.href);
    if (!known) found.set(c.href, title ? { url: c.href, title } : { url: c.href });
    else if (title && !known.title) known.title = title;
  };

  const fromSitemaps = async () => {
    if (options.useSitemap === false) return;
    const robots = await loadRobots(fetchers, origin, 'trawl', signal).catch(() => undefined);
    const roots = [...new Set([...(robots?.sitemaps ?? []), `${origin}/sitemap.xml`, `${origin}/sitemap_index.xml`])];
    const urls = await readSitemaps(fetchers.http, roots, {
      maxUrls: MAX_COLLECTED,
      maxFiles: 500,
      concurrency: 8,
      timeoutMs: Math.min(10_000, timeoutMs),
      signal,
      fetchers,
    });
    for (const u of urls) add(u);
  };

  const harvest = async () => {
    const pageLinks = async (url: string): Promise<{ url: string; title?: string }[]> => {
      const page = await fetchPage(fetchers, url, { render: 'http', timeoutMs: Math.min(10_000, timeoutMs), signal });
      try {
        if (page.kind !== 'html' || !page.text) return [];
        const out: { url: string; title?: string }[] = [];
        for (const el of elements(parseHtml(page.text))) {
          if (el.name !== 'a' || !el.attribs.href) continue;
          const abs = absoluteUrl(el.attribs.href, page.url);
          if (abs?.startsWith('http'))
            out.push({ url: abs, title: collapse(textOf(el, ' ')).slice(0, 200) || undefined });
        }
        return out;
      } finally {
        releasePage(page);
      }
    };
    const first = await pageLinks(start);
    add(start);
    for (const l of first) add(l.url, l.title);
    // A few of the pages it links to: section pages carry the links the home page leaves out.
    const next = [
      ...new Set(
        first.map((l) => canonicalUrl(l.url)).filter((u): u is string => !!u && u !== start && sameSite(new URL(u))),
      ),
    ].slice(0, HARVEST_PAGES);
    await Promise.all(
      next.map(async (u) => {
        for (const l of await pageLinks(u).catch(() => [])) add(l.url, l.title);
      }),
    );
  };

  const [sitemaps, links] = await Promise.allSettled([fromSitemaps(), harvest()]);
  // The start page's own failure (refused, unreachable) is the map's when the sitemaps gave nothing.
  if (links.status === 'rejected' && !found.size) throw links.reason;
  if (sitemaps.status === 'rejected' && links.status === 'rejected') throw sitemaps.reason;

  let all = [...found.values()];
  if (options.search?.trim()) {
    const words = (l: MappedLink) => `${pathWords(l.url)} ${l.title ?? ''}`;
    const bm = new Bm25(all.map(words));
    const scored = all.map((l, i) => ({ l, s: bm.score(options.search!, i), i }));
    scored.sort((a, b) => b.s - a.s || a.i - b.i);
    all = scored.map((x) => x.l);
  }
  return { links: all.slice(0, limit), total: found.size };
}

/** A URL's path as words ("/docs/getting-started" → "docs getting started"). */
function pathWords(url: string): string {
  let path = new URL(url).pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    /* a broken escape: the raw path */
  }
  return path.replace(/[/_.\-+]+/g, ' ');
}
