/**
 * Sitemaps as extra crawl seeds: `<urlset>` and `<sitemapindex>` (followed a few levels),
 * plain or gzip-compressed, fetched through the same guarded client, bounded in count.
 */
import { gunzipSync } from 'node:zlib';
import { decodeXML } from 'entities';
import type { HttpClient } from '../fetch/http.js';

export interface SitemapOptions {
  /** Most page URLs returned. @default 5000 */
  maxUrls?: number;
  /** Index nesting followed. @default 3 */
  maxDepth?: number;
  /** Sitemap files fetched in all. @default 50 */
  maxFiles?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
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
      let body: Buffer;
      try {
        const res = await http.request(url, { timeoutMs: options.timeoutMs ?? 10_000, maxBytes: 50 * 1024 * 1024, signal: options.signal, headers: { accept: 'application/xml,text/xml,*/*' } });
        if (res.status >= 400) continue;
        body = res.body;
      } catch {
        continue; // A missing or broken sitemap only means fewer seeds.
      }
      if (body[0] === 0x1f && body[1] === 0x8b) {
        try {
          body = gunzipSync(body, { maxOutputLength: 50 * 1024 * 1024 });
        } catch {
          continue;
        }
      }
      const { pages, sitemaps } = parseSitemap(body.toString('utf8'));
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
