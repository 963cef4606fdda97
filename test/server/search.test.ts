/** POST /v1/search with local fake providers answering in each provider's real format. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage as article, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

let pages: FixtureServer;
let providers: FixtureServer;
const services: TestService[] = [];

beforeAll(async () => {
  pages = await startFixtureServer({
    '/cooking': article(
      'Pasta',
      '<p>Boil salted water, add the pasta and cook it for nine minutes, stirring now and then.</p>',
    ),
    '/tides': article(
      'Tides',
      '<p>Tides are caused mainly by the gravitational pull of the Moon on the oceans of the Earth.</p><p>The Sun also pulls, which is why spring tides are higher when Sun and Moon line up.</p>',
    ),
    '/mixed': article(
      'Notes',
      '<p>Some notes about the sea and the weather on the coast, with a word on the moon.</p>',
    ),
  });
  const u = pages.url;
  const searxResults = [
    {
      url: `${u}/cooking`,
      title: 'How to cook pasta',
      content: 'A cooking guide',
      engine: 'x',
      publishedDate: '2024-05-01T00:00:00',
    },
    { url: `${u}/mixed`, title: 'Coastal notes', content: 'Notes from the coast' },
    { url: `${u}/tides`, title: 'What causes tides', content: 'An explainer on <b>tides</b>' },
    { url: `${u}/broken`, title: 'Broken page', content: 'This snippet stays when the page cannot be fetched' },
  ];
  providers = await startFixtureServer({
    '/searx/search': (req, res) => {
      const q = new URL(req.url!, 'http://x').searchParams;
      if (q.get('format') !== 'json') return void res.writeHead(403).end('format not allowed');
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ query: q.get('q'), results: searxResults }));
    },
    '/bad/search': (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('<html>not json</html>'),
    '/brave': (req, res) => {
      if (req.headers['x-subscription-token'] !== 'brave-key') return void res.writeHead(401).end('{}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          type: 'search',
          web: {
            results: [
              {
                title: 'What causes <strong>tides</strong>',
                url: `${u}/tides`,
                description: 'The <strong>Moon</strong>.',
                page_age: '2023-01-01T00:00:00',
              },
            ],
          },
        }),
      );
    },
    '/ddg': (_q, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<div class="result"><a class="result__a" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(`${u}/tides`)}">Tides</a><a class="result__snippet">Moon and tides</a></div>`,
        ),
  });
});
afterAll(async () => {
  for (const s of services) await s.stop();
  await pages?.close();
  await providers?.close();
});

async function service(env: Record<string, string>): Promise<TestService> {
  const s = await startTestService('sqlite', env);
  services.push(s);
  return s;
}

describe('POST /v1/search', () => {
  it('re-ranks by content, cites, highlights quotable passages and keeps snippets of unreachable pages', async () => {
    const svc = await service({ SEARXNG_URL: `${providers.url}/searx` });
    const { key, accountId } = await svc.newKey(3);
    const res = await svc.post('/v1/search', { query: 'what causes ocean tides moon', limit: 4 }, key);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ status: 'ok', query: 'what causes ocean tides moon' });
    expect(body.results).toHaveLength(4);
    expect(body.results.map((r: { position: number }) => r.position)).toEqual([1, 2, 3, 4]);
    expect(body.results.map((r: { citation: string }) => r.citation)).toEqual(['[1]', '[2]', '[3]', '[4]']);
    const top = body.results[0];
    expect(top.url).toBe(`${pages.url}/tides`);
    expect(top.source).toBe('127.0.0.1');
    expect(top.title).toBe('What causes tides');
    expect(top.snippet).toBe('An explainer on tides');
    expect(top.markdown).toContain('gravitational pull of the Moon');
    expect(top.highlights[0].text).toContain('Tides are caused mainly by the gravitational pull of the Moon');
    expect(top.highlights[0].score).toBe(1);
    // Every highlight is a verbatim piece of the page's text.
    for (const h of top.highlights) expect(top.markdown.replace(/\s+/g, ' ')).toContain(h.text.slice(0, 60));
    expect(body.results.map((r: { score: number }) => r.score)).toEqual(
      [...body.results.map((r: { score: number }) => r.score)].sort((a, b) => b - a),
    );
    const cooking = body.results.find((r: { url: string }) => r.url.endsWith('/cooking'));
    expect(cooking.published_at).toBe('2024-05-01T00:00:00');
    expect(cooking.highlights).toEqual([]);
    const broken = body.results.find((r: { url: string }) => r.url.endsWith('/broken'));
    expect(broken.snippet).toBe('This snippet stays when the page cannot be fetched');
    expect(broken.markdown).toBeUndefined();
    expect(await svc.credits(accountId)).toBe(2);
  });

  it('scrape: false returns provider results without page content', async () => {
    const svc = await service({ SEARXNG_URL: `${providers.url}/searx` });
    const { key } = await svc.newKey(3);
    const body = await (await svc.post('/v1/search', { query: 'tides', limit: 2, scrape: false }, key)).json();
    expect(body.results).toHaveLength(2);
    for (const r of body.results) expect(r.markdown).toBeUndefined();
  });

  it('speaks the Brave Search API and the DuckDuckGo HTML page', async () => {
    const brave = await service({ BRAVE_API_KEY: 'brave-key', BRAVE_API_URL: `${providers.url}/brave` });
    const b = await (await brave.post('/v1/search', { query: 'tides moon' }, (await brave.newKey(2)).key)).json();
    expect(b.results[0]).toMatchObject({
      title: 'What causes tides',
      snippet: 'The Moon.',
      published_at: '2023-01-01T00:00:00',
      url: `${pages.url}/tides`,
    });
    const ddg = await service({ SEARCH_PROVIDER: 'duckduckgo', DUCKDUCKGO_URL: `${providers.url}/ddg` });
    const d = await (await ddg.post('/v1/search', { query: 'tides' }, (await ddg.newKey(2)).key)).json();
    expect(d.results[0]).toMatchObject({ title: 'Tides', snippet: 'Moon and tides', url: `${pages.url}/tides` });
  });

  it('answers 502 fetch_failed without charge when the provider is down or malformed', async () => {
    const envs: Record<string, string>[] = [
      { SEARXNG_URL: 'http://127.0.0.1:1/' },
      { SEARXNG_URL: `${providers.url}/bad` },
      { BRAVE_API_KEY: 'wrong', BRAVE_API_URL: `${providers.url}/brave` },
    ];
    for (const env of envs) {
      const svc = await service(env);
      const { key, accountId } = await svc.newKey(2);
      const res = await svc.post('/v1/search', { query: 'tides' }, key);
      expect(res.status, JSON.stringify(env)).toBe(502);
      expect(await res.json()).toMatchObject({
        error: 'fetch_failed',
        detail: expect.stringContaining('search provider'),
      });
      expect(await svc.credits(accountId)).toBe(2);
    }
  });

  it('validates the request', async () => {
    const svc = await service({ SEARXNG_URL: `${providers.url}/searx` });
    const { key } = await svc.newKey(2);
    for (const [body, detail] of [
      [{}, 'query: is required'],
      [{ query: '' }, 'query: must be a string of 1 to 400 characters'],
      [{ query: 'x'.repeat(401) }, 'query: must be a string of 1 to 400 characters'],
      [{ query: 'x', limit: 21 }, 'limit: must be an integer from 1 to 20'],
      [{ query: 'x', country: 'USA' }, 'country: must be an ISO 3166-1 alpha-2 code'],
    ] as const) {
      const res = await svc.post('/v1/search', body, key);
      expect(res.status).toBe(400);
      expect((await res.json()).detail).toContain(detail);
    }
  });
});
