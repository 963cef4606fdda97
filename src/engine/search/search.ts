/**
 * search: ask the provider, fetch the result pages concurrently (same guarded fetcher,
 * bounded time), turn them into passages, score every passage against the query with BM25,
 * and fuse the provider's rank with the content rank (reciprocal rank fusion, k = 60).
 * Each result carries a citation and its best passages, quotable as they stand on the page.
 */
import { processDocument } from '../document/process.js';
import { fetchPage, releasePage, type Fetchers } from '../fetch/page.js';
import { Bm25 } from './bm25.js';
import { toPassages } from './passages.js';
import type { ProviderResult, SearchProvider } from './provider.js';

export interface SearchOptions {
  query: string;
  /** @default 5 */
  limit?: number;
  /** Fetch each result and return its content. @default true */
  scrape?: boolean;
  country?: string;
  language?: string;
  /** Budget for the whole search. @default 20000 */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface SearchResult {
  position: number;
  citation: string;
  title: string;
  url: string;
  source: string;
  snippet: string;
  published_at?: string;
  markdown?: string;
  highlights: { text: string; score: number }[];
  score: number;
}

const RRF_K = 60;
/**
 * The page's own text is what an agent will quote, so its rank counts twice the provider's:
 * a page two places down that answers the query better moves above. (Measured by
 * `npm run eval:search`: with the answer at a random provider position, MRR 0.66 at equal
 * weights → 0.88; with the answer first, 1.00 either way.)
 */
const CONTENT_WEIGHT = 2;
const round = (n: number, d = 4) => Math.round(n * 10 ** d) / 10 ** d;

export async function search(
  fetchers: Fetchers,
  provider: SearchProvider,
  options: SearchOptions,
): Promise<{ query: string; results: SearchResult[] }> {
  const limit = options.limit ?? 5;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  const found = await provider.search({
    query: options.query,
    limit,
    country: options.country,
    language: options.language,
    signal: options.signal,
    timeoutMs: Math.min(10_000, timeoutMs),
  });
  const seen = new Set<string>();
  const hits = found.filter((r) => (seen.has(r.url) ? false : (seen.add(r.url), true))).slice(0, limit);

  // Fetch concurrently; a page that fails keeps its provider snippet.
  const pages = await Promise.all(
    hits.map(async (hit) => {
      if (options.scrape === false) return undefined;
      try {
        const page = await fetchPage(fetchers, hit.url, {
          render: 'http',
          timeoutMs: Math.max(1000, Math.min(8000, deadline - Date.now())),
          signal: options.signal,
        });
        try {
          if (page.kind === 'html')
            return (
              (
                await processDocument(fetchers.documents, page.text ?? '', { url: page.url }, undefined, {
                  signal: options.signal,
                  deadline,
                })
              ).markdown ?? ''
            );
          if (page.kind === 'text') return page.text ?? '';
          return undefined;
        } finally {
          releasePage(page);
        }
      } catch {
        return undefined;
      }
    }),
  );

  const passages: { result: number; text: string }[] = [];
  hits.forEach((hit, i) => {
    const md = pages[i];
    const texts = md ? toPassages(md) : [];
    for (const t of texts.length ? texts : [hit.snippet].filter(Boolean)) passages.push({ result: i, text: t });
  });
  const bm25 = new Bm25(passages.map((p) => `${p.text}`));
  const scored = passages.map((p, i) => ({ ...p, score: bm25.score(options.query, i) }));
  const best = Math.max(1e-9, ...scored.map((p) => p.score));

  const contentScore = hits.map((hit, i) => {
    const mine = scored.filter((p) => p.result === i).sort((a, b) => b.score - a.score);
    const titleBoost = new Bm25([hit.title, ...passages.map((p) => p.text)]).score(options.query, 0) * 0.2;
    return { i, top: mine.slice(0, 3), value: (mine[0]?.score ?? 0) + 0.5 * (mine[1]?.score ?? 0) + titleBoost };
  });
  const contentRank = new Map([...contentScore].sort((a, b) => b.value - a.value).map((c, rank) => [c.i, rank + 1]));

  const fused = hits.map((hit, i) => ({
    hit,
    i,
    score: 1 / (RRF_K + i + 1) + (contentScore[i].value > 0 ? CONTENT_WEIGHT / (RRF_K + contentRank.get(i)!) : 0),
  }));
  fused.sort((a, b) => b.score - a.score || a.i - b.i);
  return {
    query: options.query,
    results: fused.map(({ hit, i, score }, n) => {
      const highlights = contentScore[i].top
        .filter((p) => p.score > 0)
        .map((p) => ({ text: p.text, score: round(p.score / best, 3) }));
      const r: SearchResult = {
        position: n + 1,
        citation: `[${n + 1}]`,
        title: hit.title,
        url: hit.url,
        source: sourceOf(hit),
        snippet: hit.snippet || highlights[0]?.text.slice(0, 300) || '',
        highlights,
        score: round(score),
      };
      if (hit.publishedAt) r.published_at = hit.publishedAt;
      if (options.scrape !== false && pages[i] !== undefined) r.markdown = pages[i];
      return r;
    }),
  };
}

function sourceOf(hit: ProviderResult): string {
  try {
    return new URL(hit.url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}
