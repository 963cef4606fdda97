import type { Config } from '../../config.js';
import type { HttpClient } from '../fetch/http.js';
import { BraveProvider } from './brave.js';
import { DuckDuckGoProvider } from './duckduckgo.js';
import type { SearchProvider } from './provider.js';
import { SearxngProvider } from './searxng.js';

export { search, type SearchOptions, type SearchResult } from './search.js';
export type { SearchProvider, ProviderResult } from './provider.js';
export { parseDuckDuckGo } from './duckduckgo.js';

/**
 * The configured provider: SEARCH_PROVIDER when set, else SearXNG when SEARXNG_URL is set,
 * else Brave when BRAVE_API_KEY is set, else DuckDuckGo's keyless HTML page.
 */
export function createSearchProvider(
  config: Pick<Config, 'searchProvider' | 'searxngUrl' | 'braveApiKey'> & {
    braveApiUrl?: string;
    duckduckgoUrl?: string;
  },
  http: HttpClient,
): SearchProvider {
  const name = (
    config.searchProvider ?? (config.searxngUrl ? 'searxng' : config.braveApiKey ? 'brave' : 'duckduckgo')
  ).toLowerCase();
  switch (name) {
    case 'searxng':
      if (!config.searxngUrl) throw new Error('SEARCH_PROVIDER=searxng needs SEARXNG_URL');
      return new SearxngProvider(http, config.searxngUrl);
    case 'brave':
      if (!config.braveApiKey) throw new Error('SEARCH_PROVIDER=brave needs BRAVE_API_KEY');
      return new BraveProvider(http, config.braveApiKey, config.braveApiUrl);
    case 'duckduckgo':
    case 'ddg':
      return new DuckDuckGoProvider(http, config.duckduckgoUrl);
    default:
      throw new Error(`SEARCH_PROVIDER: "${name}" is not one of searxng, brave, duckduckgo`);
  }
}
