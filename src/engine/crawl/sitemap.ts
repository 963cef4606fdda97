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
  /** Files of one index level fetched at once. @default 4 */
  concurrency?: number;
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
  const readOne = async (url: string): Promise<ReturnType<typeof parseSitemap> | undefined> => {
    let hold: Awaited<ReturnType<typeof holdForFetch>> | undefined;
    try {
      const timeoutMs = options.timeoutMs ?? 10_000;
      hold = options.fetchers ? await holdForFetch(options.fetchers, timeoutMs, options.signal) : undefined;
      const res = await http.request(url, {
        timeoutMs: hold?.timeoutMs ?? timeoutMs,
        maxBytes: 50 * 1024 * 1024,
        signal: options.signal,
        headers: { accept: 'application/xml,text/xml,*/*' },
        lease: hold?.lease,
      });
      if (res.status >= 400) return undefined;
      let body = res.body;
      if (body[0] === 0x1f && body[1] === 0x8b) {
        body = gunzipSync(body, { maxOutputLength: 50 * 1024 * 1024 });
        // The unpacked bytes count too: past the large-page size they wait for a large-page slot.
        const limit = AbortSignal.timeout(Math.max(1, timeoutMs));
        await hold?.lease?.grow(body.length, options.signal ? AbortSignal.any([options.signal, limit]) : limit);
      }
      return parseSitemap(body.toString('utf8'));
    } catch {
      return undefined; // A missing or broken sitemap only means fewer URLs.
    } finally {
      hold?.release();
    }
  };
  let level = roots;
  for (let depth = 0; level.length && out.length < maxUrls && seen.size < maxFiles; depth++) {
    const files = [...new Set(level)].filter((u) => !seen.has(u)).slice(0, maxFiles - seen.size);
    for (const f of files) seen.add(f);
    // The files of one level are read a few at a time (an index of a hundred children is common),
    // and their URLs kept in the index's order.
    const found: (ReturnType<typeof parseSitemap> | undefined)[] = new Array(files.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < files.length && !options.signal?.aborted; i = next++) found[i] = await readOne(files[i]);
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 4, files.length) }, worker));
    const children: string[] = [];
    for (const f of found) {
      if (!f) continue;
      for (const p of f.pages) {
        if (out.length >= maxUrls) break;
        out.push(p);
      }
      if (depth + 1 <= (options.maxDepth ?? 3)) children.push(...f.sitemaps);
    }
    level = children;
  }
  return out;
}
