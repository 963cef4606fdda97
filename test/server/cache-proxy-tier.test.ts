/**
 * An outside attack (issue 42) found: the result cache's key had no proxy tier. A page fetched
 * through the stealth tier (5 credits) with `max_age` was then served to another account's
 * `proxy: "basic"` — which stays on the basic tier and is `blocked` for this page — as a hit with
 * `proxy_used: "stealth"` for 1 credit. A page read through the stealth tier is now cached in its
 * account's own scope only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { startForwardProxy, startWall, type ForwardProxy, type WallServer } from '../helpers/walls.js';

describe('the result cache across proxy tiers', () => {
  let svc: TestService;
  let proxy: ForwardProxy;
  let ip: WallServer;
  beforeAll(async () => {
    proxy = await startForwardProxy('127.0.0.2');
    ip = await startWall('ip-reputation');
    svc = await startTestService('sqlite', {
      CHROMIUM_PATH: '/nonexistent/chromium',
      TRAWL_STEALTH_PROXY_URLS: proxy.url,
    });
  });
  afterAll(async () => {
    await svc?.stop();
    await ip?.close();
    await proxy?.close();
  });

  it('another account’s proxy "basic" is not answered with a page the stealth tier fetched', async () => {
    const payer = await svc.newKey(20);
    const first = await svc.post('/v1/scrape', { url: ip.url, max_age: 600_000, proxy: 'auto' }, payer.key);
    expect((await first.json()).metadata).toMatchObject({ proxy_used: 'stealth', credits_used: 5, cache: 'miss' });

    const other = await svc.newKey(10);
    const basic = await svc.post('/v1/scrape', { url: ip.url, max_age: 600_000, proxy: 'basic' }, other.key);
    expect(basic.status).toBe(502);
    expect((await basic.json()).error).toBe('blocked');
    expect(await svc.credits(other.accountId)).toBe(10);

    // The account that paid the tier has its own page back from the cache, at a page's price.
    const again = await svc.post('/v1/scrape', { url: ip.url, max_age: 600_000, proxy: 'auto' }, payer.key);
    expect((await again.json()).metadata).toMatchObject({ proxy_used: 'stealth', cache: 'hit', credits_used: 1 });
  });
});
