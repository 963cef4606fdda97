/** Search providers behind one interface: SearXNG (JSON API), Brave Search API, DuckDuckGo HTML. */
import { decodeHTML } from 'entities';
import { TrawlError } from '../../errors.js';
import type { HttpClient } from '../fetch/http.js';

export interface ProviderResult {
  title: string;
  url: string;
  snippet: string;
  publishedAt?: string;
}

export interface SearchRequest {
  query: string;
  limit: number;
  /** ISO 3166-1 alpha-2, e.g. "US". */
  country?: string;
  /** ISO 639-1, e.g. "en". */
  language?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface SearchProvider {
  readonly name: string;
  search(request: SearchRequest): Promise<ProviderResult[]>;
}

export function providerFailed(name: string, why: string, cause?: unknown): TrawlError {
  return new TrawlError('fetch_failed', `the search provider (${name}) failed: ${why}`, { cause, retryable: true });
}

/** Ask a provider endpoint; any transport failure or HTTP error is the provider's failure. */
export async function askProvider(
  http: HttpClient,
  name: string,
  url: string,
  req: SearchRequest,
  headers: Record<string, string> = {},
): Promise<Buffer> {
  let res;
  try {
    res = await http.request(url, {
      headers,
      timeoutMs: req.timeoutMs ?? 10_000,
      maxBytes: 5 * 1024 * 1024,
      signal: req.signal,
    });
  } catch (e) {
    throw providerFailed(name, (e as TrawlError).detail ?? (e as Error).message, e);
  }
  if (res.status === 429) throw providerFailed(name, 'rate limited (HTTP 429)');
  if (res.status >= 400) throw providerFailed(name, `HTTP ${res.status}`);
  return res.body;
}

export function stripTags(s: string): string {
  return decodeHTML(s.replace(/<[^>]+>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
}
