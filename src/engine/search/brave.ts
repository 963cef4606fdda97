/** Brave Search API (web search), authenticated with BRAVE_API_KEY. */
import type { HttpClient } from '../fetch/http.js';
import {
  askProvider,
  providerFailed,
  stripTags,
  type ProviderResult,
  type SearchProvider,
  type SearchRequest,
} from './provider.js';

export const BRAVE_DEFAULT_URL = 'https://api.search.brave.com/res/v1/web/search';

export class BraveProvider implements SearchProvider {
  readonly name = 'brave';
  constructor(
    private readonly http: HttpClient,
    private readonly apiKey: string,
    private readonly endpoint = BRAVE_DEFAULT_URL,
  ) {}

  async search(req: SearchRequest): Promise<ProviderResult[]> {
    const u = new URL(this.endpoint);
    u.searchParams.set('q', req.query);
    u.searchParams.set('count', String(Math.min(20, req.limit)));
    if (req.country) u.searchParams.set('country', req.country.toLowerCase());
    if (req.language) u.searchParams.set('search_lang', req.language.toLowerCase());
    const body = await askProvider(this.http, this.name, u.href, req, {
      accept: 'application/json',
      'x-subscription-token': this.apiKey,
    });
    let data: { web?: { results?: { url?: unknown; title?: unknown; description?: unknown; page_age?: unknown }[] } };
    try {
      data = JSON.parse(body.toString('utf8'));
    } catch (e) {
      throw providerFailed(this.name, 'the answer is not JSON', e);
    }
    if (!data || typeof data !== 'object') throw providerFailed(this.name, 'the answer is not an object');
    const results = data.web?.results ?? [];
    if (!Array.isArray(results)) throw providerFailed(this.name, 'web.results is not a list');
    return results
      .filter((r) => typeof r.url === 'string' && /^https?:/.test(r.url as string))
      .map((r) => ({
        url: r.url as string,
        title: stripTags(String(r.title ?? '')),
        snippet: stripTags(String(r.description ?? '')),
        publishedAt: typeof r.page_age === 'string' ? r.page_age : undefined,
      }));
  }
}
