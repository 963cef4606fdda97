/** SearXNG's JSON API (`/search?format=json`); the instance must enable the json format. */
import type { HttpClient } from '../fetch/http.js';
import {
  askProvider,
  providerFailed,
  stripTags,
  type ProviderResult,
  type SearchProvider,
  type SearchRequest,
} from './provider.js';

export class SearxngProvider implements SearchProvider {
  readonly name = 'searxng';
  constructor(
    private readonly http: HttpClient,
    private readonly baseUrl: string,
  ) {}

  async search(req: SearchRequest): Promise<ProviderResult[]> {
    const u = new URL('search', this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    u.searchParams.set('q', req.query);
    u.searchParams.set('format', 'json');
    u.searchParams.set('pageno', '1');
    if (req.language) u.searchParams.set('language', req.country ? `${req.language}-${req.country}` : req.language);
    const body = await askProvider(this.http, this.name, u.href, req, { accept: 'application/json' });
    let data: { results?: { url?: unknown; title?: unknown; content?: unknown; publishedDate?: unknown }[] };
    try {
      data = JSON.parse(body.toString('utf8'));
    } catch (e) {
      throw providerFailed(this.name, 'the answer is not JSON (is format=json enabled on the instance?)', e);
    }
    if (!data || !Array.isArray(data.results)) throw providerFailed(this.name, 'the answer has no results list');
    const out: ProviderResult[] = [];
    for (const r of data.results) {
      if (typeof r.url !== 'string' || !/^https?:/.test(r.url)) continue;
      out.push({
        url: r.url,
        title: stripTags(String(r.title ?? '')),
        snippet: stripTags(String(r.content ?? '')),
        publishedAt: typeof r.publishedDate === 'string' && r.publishedDate ? r.publishedDate : undefined,
      });
    }
    return out;
  }
}
