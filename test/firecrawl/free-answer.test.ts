/**
 * /firecrawl's scrape follows /v1's free-answer rule and says so as Firecrawl says things, in the
 * Document's `warning` (a string): a JavaScript-only page on a server without Chromium costs
 * nothing and its warning names why and that no credit was charged; a page with text costs one
 * and carries no warning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const SHELL =
  '<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script src="/bundle.js"></script></body></html>';
const ARTICLE =
  '<!doctype html><html><head><title>Lamp</title></head><body><article><h1>Lamp</h1><p>A brass lamp for the desk, with warm light for reading late at night, and a long cord.</p><p>It comes with a warm bulb and a cloth shade in three colours.</p></article></body></html>';

describe('/firecrawl scrape, free answer', () => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer({ '/app': SHELL, '/lamp': ARTICLE });
    svc = await startTestService('sqlite', { CHROMIUM_PATH: '/nonexistent/chromium' });
  });
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it.each(['v1', 'v2'])('gives the empty answer free with its warning on %s, as /v1 does', async (version) => {
    const { key, accountId } = await svc.newKey(5);
    const call = async (path: string) => {
      const res = await fetch(`${svc.url}/firecrawl/${version}/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${site.url}${path}` }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { success: boolean; data: Record<string, any> };
    };
    const empty = await call('/app');
    expect(empty.success).toBe(true);
    expect(typeof empty.data.warning).toBe('string');
    expect(empty.data.warning).toMatch(/CHROMIUM_PATH/);
    expect(empty.data.warning).toMatch(/nothing came back from this page, so no credit was charged/);
    expect(empty.data.metadata.creditsUsed).toBe(0);
    expect(await svc.credits(accountId)).toBe(5);
    // The same words as /v1's warnings, joined.
    const v1 = await (await svc.post('/v1/scrape', { url: `${site.url}/app` }, key)).json();
    expect(empty.data.warning).toBe(v1.warnings.join(' '));

    const full = await call('/lamp');
    expect(full.data.warning).toBeUndefined();
    expect(full.data.metadata.creditsUsed).toBe(1);
    expect(await svc.credits(accountId)).toBe(4);
  });
});
