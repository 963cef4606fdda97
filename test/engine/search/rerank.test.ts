/** The search engine's fusion of provider order and page content, with a stand-in provider. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { processHtml } from '../../../src/engine/document/index.js';
import type { PooledOptions } from '../../../src/engine/document/pool.js';
import { search } from '../../../src/engine/search/search.js';
import type { SearchProvider } from '../../../src/engine/search/provider.js';
import { articlePage as article, startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

let site: FixtureServer;
let http: HttpClient;

beforeAll(async () => {
  site = await startFixtureServer({
    '/partial': article(
      'Harbour notes',
      '<p>The harbour master keeps notes on boats, weather and the moon over the bay, season after season.</p>',
    ),
    '/none': article(
      'Bread',
      '<p>Knead the dough for ten minutes, let it rise for an hour and bake it until golden.</p>',
    ),
    '/full': article(
      'Tides explained',
      '<p>Ocean tides are caused by the gravitational pull of the moon, and the sun adds spring tides twice a month.</p>',
    ),
  });
  http = new HttpClient({ allowPrivateNetwork: true });
});
afterAll(async () => {
  await http?.close();
  await site?.close();
});

const provider = (paths: string[]): SearchProvider => ({
  name: 'stub',
  search: async () => paths.map((p) => ({ title: p.slice(1), url: `${site.url}${p}`, snippet: '' })),
});

describe('search re-ranking', () => {
  it('moves a page that answers the query above pages the provider put first', async () => {
    let processed = 0;
    // Pages go through the fetchers' document processor when there is one.
    const documents = {
      process: async (s: string, o: PooledOptions) => (processed++, processHtml(s, o)),
      close: async () => {},
    };
    const r = await search({ http, documents }, provider(['/partial', '/none', '/full']), {
      query: 'what causes ocean tides moon gravitational pull',
    });
    expect(processed).toBe(3);
    expect(r.results.map((x) => x.url.replace(site.url, ''))).toEqual(['/full', '/partial', '/none']);
    expect(r.results[0]).toMatchObject({ position: 1, citation: '[1]' });
    expect(r.results[0].highlights[0].text).toContain('gravitational pull of the moon');
    // A page with nothing on the query keeps no highlights and stays behind.
    expect(r.results[2].highlights).toEqual([]);
  });

  it('keeps the provider order when the pages answer equally', async () => {
    const r = await search({ http }, provider(['/none', '/partial']), { query: 'nothing matches here zebra' });
    expect(r.results.map((x) => x.url.replace(site.url, ''))).toEqual(['/none', '/partial']);
  });
});
