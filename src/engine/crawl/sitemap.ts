/**
 * Sitemaps as extra crawl seeds: `<urlset>` and `<sitemapindex>` (followed a few levels),
 * plain or gzip-compressed, fetched through the same guarded client, bounded in count.
 */
import { gunzipSync } from 'node:zlib';
import { decodeXML } from 'entities';
import type { HttpClient } from '../fetch/http.js';
import { holdForFetch, type Fetchers } from '../fetch/page.js';

export interface SitemapOptions {
  /** Most page URLs returned. @default 5000 */
  maxUrls?: number;
  /** Index nesting followed. @default 3 */
  maxDepth?: number;
  /** Sitemap files fetched in all. @default 50 */
  maxFiles?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * The caller's slots and the large-page gate: each sitemap file (up to 50 MB) is fetched and
   * parsed holding one of its owner's slots and admission, as a page is.
   */
  fetchers?: Pick<Fetchers, 'slots' | 'largePages'>;
}

export function parseSitemap(xml: string): { pages: string[]; sitemaps: string[] } {
  const pages: string[] = [];
  const sitemaps: string[] = [];
  const isIndex = /<sitemapindex[\s>]/i.test(xml);
  for (const m of xml.matchAll(/<loc>\s*(?:<!\[CDATA\[)?\s*([^<\]]+?)\s*(?:\]\]>)?\s*<\/loc>/gi)) {
    (isIndex ? sitemaps : pages).push(decodeXML(m[1]));
  }
  return { pages, sitemaps };
}

export async function readSitemaps(http: HttpClient, roots: string[], options: SitemapOptions = {}): Promise<string[]> {
  const maxUrls = options.maxUrls ?? 5000;
  const maxFiles = options.maxFiles ?? 50;
  const seen = new Set<string>();
  const out: string[] = [];
  let queue = roots.map((u) => ({ url: u, depth: 0 }));
  while (queue.length && out.length < maxUrls && seen.size < maxFiles) {
    const next: typeof queue = [];
    for (const { url, depth } of queue) {
      if (seen.has(url) || seen.size >= maxFiles) continue;
      seen.add(url);
      let hold: Awaited<ReturnType<typeof holdForFetch>> | undefined;
      let found: ReturnType<typeof parseSitemap>;
      try {
        const timeoutMs = options.timeoutMs ?? 10_000;
        hold = options.fetchers ? await holdForFetch(options.fetchers, timeoutMs, options.signal) : undefined;
        const res = await http.request(url, { timeoutMs: hold?.timeoutMs ?? timeoutMs, maxBytes: 50 * 1024 * 1024, signal: options.signal, headers: { accept: 'application/xml,text/xml,*/*' }, lease: hold?.lease });
        if (res.status >= 400) continue;
        let body = res.body;
        if (body[0] === 0x1f && body[1] === 0x8b) {
          body = gunzipSync(body, { maxOutputLength: 50 * 1024 * 1024 });
          // The unpacked bytes count too: past the large-page size they wait for a large-page slot.
          const limit = AbortSignal.timeout(Math.max(1, timeoutMs));
          await hold?.lease?.grow(body.length, options.signal ? AbortSignal.any([options.signal, limit]) : limit);
        }
        found = parseSitemap(body.toString('utf8'));
      } catch {
        continue; // A missing or broken sitemap only means fewer seeds.
      } finally {
        hold?.release();
      }
      const { pages, sitemaps } = found;
      for (const p of pages) {
        if (out.length >= maxUrls) break;
        out.push(p);
      }
      if (depth + 1 <= (options.maxDepth ?? 3)) for (const s of sitemaps) next.push({ url: s, depth: depth + 1 });
    }
    queue = next;
  }
  return out;
}
