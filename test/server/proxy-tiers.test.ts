/**
 * `proxy` on POST /v1/scrape and Firecrawl's scrape (issue 42): `auto` climbs from the basic tier
 * to the operator's stealth proxies (TRAWL_STEALTH_PROXY_URLS; here a local forward proxy exiting
 * from 127.0.0.2, "a better IP") when the answer is a block by address; the answer says
 * `metadata.proxy_used`; a hard block is a 502 `blocked` naming the tiers tried, without the
 * proxy's credentials, and costs nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { ARTICLE_TEXT, startForwardProxy, startWall, type ForwardProxy, type WallServer } from '../helpers/walls.js';

const PASSWORD = 'stealth-pass-4f1a9c';

describe('proxy tiers over the API', () => {
  let svc: TestService;
  let plain: TestService;
  let proxy: ForwardProxy;
  let ip: WallServer;
  let hard: WallServer;
  beforeAll(async () => {
    proxy = await startForwardProxy('127.0.0.2');
    ip = await startWall('ip-reputation');
    hard = await startWall('hard-block');
    const u = new URL(proxy.url);
    u.username = 'tier';
    u.password = PASSWORD;
    svc = await startTestService('sqlite', {
      CHROMIUM_PATH: '/nonexistent/chromium',
      TRAWL_STEALTH_PROXY_URLS: u.href,
    });
    plain = await startTestService('sqlite', { CHROMIUM_PATH: '/nonexistent/chromium' });
  });
  afterAll(async () => {
    await svc?.stop();
    await plain?.stop();
    await ip?.close();
    await hard?.close();
    await proxy?.close();
  });

  it('a request naming no tier stays on the basic one: blocked, no credit, never the five of stealth', async () => {
    const { key, accountId } = await svc.newKey(10);
    const res = await svc.post('/v1/scrape', { url: ip.url }, key);
    expect(res.status).toBe(502);
    expect((await res.json()).detail).toContain('tried: basic;');
    expect(await svc.credits(accountId)).toBe(10);
  });

  it('auto climbs to stealth on a block by address; metadata.proxy_used says so', async () => {
    const { key, accountId } = await svc.newKey(10);
    const res = await svc.post('/v1/scrape', { url: ip.url, proxy: 'auto' }, key);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.markdown).toContain(ARTICLE_TEXT);
    expect(body.metadata.proxy_used).toBe('stealth');
    expect(body.metadata.credits_used).toBe(5);
    expect(ip.lastRemote).toMatch(/127\.0\.0\.2$/);
    // A stealth page costs 5 credits (as Firecrawl's), a basic one 1.
    expect(await svc.credits(accountId)).toBe(5);
  });

  it('an account that cannot pay for the stealth tier: auto stops below it, stealth by name is a 402', async () => {
    const { key, accountId } = await svc.newKey(3);
    const res = await svc.post('/v1/scrape', { url: ip.url, proxy: 'auto' }, key);
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body.error).toBe('blocked');
    expect(body.detail).toContain('tried: basic, stealth (not tried: the account has too few credits for it);');
    expect(await svc.credits(accountId)).toBe(3);
    const named = await svc.post('/v1/scrape', { url: ip.url, proxy: 'stealth' }, key);
    expect(named.status).toBe(402);
    expect(await svc.credits(accountId)).toBe(3);
  });

  it('basic stays basic: 502 blocked naming the tier, no credit', async () => {
    const { key, accountId } = await svc.newKey(10);
    const res = await svc.post('/v1/scrape', { url: ip.url, proxy: 'basic' }, key);
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body).toMatchObject({ error: 'blocked' });
    expect(body.detail).toContain('tried: basic;');
    expect(await svc.credits(accountId)).toBe(10);
  });

  it('a hard block names every tier tried, and never the proxy credentials', async () => {
    const { key, accountId } = await svc.newKey(10);
    const res = await svc.post('/v1/scrape', { url: hard.url, proxy: 'auto' }, key);
    expect(res.status).toBe(502);
    const text = await res.text();
    const body = JSON.parse(text);
    expect(body.error).toBe('blocked');
    expect(body.detail).toMatch(/Cloudflare block page\); tried: basic, stealth; /);
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(String(proxy.port));
    expect(await svc.credits(accountId)).toBe(10);
  });

  it('a plain page is still one plain request on the basic tier', async () => {
    const { key } = await svc.newKey(10);
    const article = await startWall('headers');
    try {
      const body = await (await svc.post('/v1/scrape', { url: article.url }, key)).json();
      expect(body.metadata).toMatchObject({ proxy_used: 'basic', credits_used: 1 });
      expect(article.hits('/')).toBe(1);
    } finally {
      await article.close();
    }
  });

  it('validates the field; stealth without stealth proxies is a 400 naming the setting', async () => {
    const { key } = await svc.newKey(10);
    const bad = await svc.post('/v1/scrape', { url: ip.url, proxy: 'residential' }, key);
    expect(bad.status).toBe(400);
    expect((await bad.json()).detail).toMatch(/^proxy: /);
    const other = await plain.newKey(10);
    const res = await plain.post('/v1/scrape', { url: ip.url, proxy: 'stealth' }, other.key);
    expect(res.status).toBe(400);
    expect((await res.json()).detail).toContain('TRAWL_STEALTH_PROXY_URLS');
    expect(await plain.credits(other.accountId)).toBe(10);
    // The body's fault comes before the credits (the contract's order): 400 for an empty account too.
    const broke = await plain.newKey(0);
    const empty = await plain.post('/v1/scrape', { url: ip.url, proxy: 'stealth' }, broke.key);
    expect(empty.status).toBe(400);
    const fc = await plain.post('/firecrawl/v2/scrape', { url: ip.url, proxy: 'stealth' }, broke.key);
    expect(fc.status).toBe(400);
  });

  it('Firecrawl scrape takes proxy "enhanced" (v2) as the stealth tier', async () => {
    const { key, accountId } = await svc.newKey(10);
    const res = await svc.post('/firecrawl/v2/scrape', { url: ip.url, proxy: 'enhanced' }, key);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.success).toBe(true);
    expect(body.data.markdown).toContain(ARTICLE_TEXT);
    expect(body.data.metadata).toMatchObject({ proxyUsed: 'stealth', creditsUsed: 5 });
    expect(await svc.credits(accountId)).toBe(5);
  });
});
