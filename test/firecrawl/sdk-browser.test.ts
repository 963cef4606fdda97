/**
 * Firecrawl's browser options through its official SDK (@mendable/firecrawl-js 4: the v2 client,
 * and its v1 client), unchanged, against a local Trawl in real Chromium: screenshots (a URL to a
 * PNG anyone holding it can fetch, sized as asked), actions (a click then a scrape that sees it,
 * a script's value, a step's screenshot), a failing step (Firecrawl's error shape, no credit),
 * headers that reach the target's site and not a third-party host, mobile and location reaching
 * the page, maxAge answered from the cache the second time, and the same options in a batch
 * scrape and a crawl's scrapeOptions. The site is reached under public-looking names pinned with
 * TRAWL_RESOLVE (the service runs without TRAWL_ALLOW_PRIVATE_NETWORK).
 */
import Firecrawl, { FirecrawlAppV1 } from '@mendable/firecrawl-js';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const chromium = findChromium();
const pngSize = (b: Buffer) => ({ width: b.readUInt32BE(16), height: b.readUInt32BE(20) });
const isPng = (b: Buffer) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title><meta name="viewport" content="width=device-width"></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

/** A page whose price is behind a tab: only a click shows it (the structure of a shop's product tabs). */
const TABS = page(
  'Kettle',
  `<p>A steel kettle that boils water quickly and quietly, for every kitchen in the house.</p>
<button id="tab-price" onclick="document.getElementById('price').hidden = false">Price</button>
<div id="price" hidden><p>Price: 19.99 EUR, delivered to your door within three working days.</p></div>
<a href="/kettle/specs">Specs</a>`,
);

/** A page that shows what the browser told it, and loads from a third-party host. */
const PROBE = page(
  'Probe',
  `<p id="probe">probe</p><img src="http://third.test/pixel.png">
<script>document.getElementById('probe').textContent = 'Browser language ' + navigator.language + ', touch points ' + navigator.maxTouchPoints + ', width ' + innerWidth + '.';</script>`,
);

describe.skipIf(!chromium)('Firecrawl SDK browser options against Trawl (real Chromium)', () => {
  let site: FixtureServer;
  let svc: TestService;
  let fc: Firecrawl;
  let key: string;
  let accountId: string;
  const seen: { host: string; path: string; headers: IncomingHttpHeaders }[] = [];
  const at = (host: string, path: string) => seen.filter((s) => s.host.startsWith(host) && s.path === path);

  beforeAll(async () => {
    const record =
      (body: string | Buffer, type = 'text/html; charset=utf-8') =>
      (req: IncomingMessage, res: ServerResponse) => {
        seen.push({ host: req.headers.host ?? '', path: (req.url ?? '').split('?')[0], headers: req.headers });
        res.writeHead(200, { 'content-type': type }).end(body);
      };
    site = await startFixtureServer({
      '/kettle': record(TABS),
      '/kettle/specs': record(
        page('Kettle specs', '<p>Specifications of the steel kettle: 1.7 litres, 2200 watts.</p>'),
      ),
      '/probe': record(PROBE),
      '/cached': record(page('Cached', '<p>A page read once and then answered from the cache for a while.</p>')),
      '/pixel.png': record(PIXEL, 'image/png'),
      '/robots.txt': record('User-agent: *\nAllow: /\n', 'text/plain'),
    });
    const pins = ['www.shop.test', 'third.test'].map((h) => `${h}=127.0.0.1:${site.port}`).join(',');
    svc = await startTestService('sqlite', { TRAWL_ALLOW_PRIVATE_NETWORK: '0', TRAWL_RESOLVE: pins });
    ({ key, accountId } = await svc.newKey(100));
    fc = new Firecrawl({ apiKey: key, apiUrl: `${svc.url}/firecrawl` });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  const fetchPng = async (url: string) => {
    // The URL is the capability: no key.
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const b = Buffer.from(await res.arrayBuffer());
    expect(isPng(b)).toBe(true);
    return b;
  };

  it('screenshot: a URL to a PNG anyone holding it can fetch, of the viewport asked', async () => {
    const before = await svc.credits(accountId);
    const doc = await fc.scrape('http://www.shop.test/kettle', {
      formats: ['markdown', { type: 'screenshot', viewport: { width: 800, height: 600 } }],
    });
    expect(doc.markdown).toContain('A steel kettle');
    expect(doc.screenshot).toMatch(new RegExp(`^${svc.url}/v1/files/[0-9A-Za-z]{32}\\.png$`));
    expect(pngSize(await fetchPng(doc.screenshot!))).toEqual({ width: 800, height: 600 });
    expect(await svc.credits(accountId)).toBe(before - 1);
    // Only the screenshot asked: no markdown; fullPage as an object's option.
    const only = await fc.scrape('http://www.shop.test/kettle', { formats: [{ type: 'screenshot', fullPage: true }] });
    expect(only.markdown).toBeUndefined();
    expect(pngSize(await fetchPng(only.screenshot!)).width).toBe(1280);
  }, 60_000);

  it('actions: a click, then a scrape that sees it; a script answers its value; a step screenshots', async () => {
    const doc = await fc.scrape('http://www.shop.test/kettle', {
      formats: ['markdown'],
      actions: [
        { type: 'scrape' },
        { type: 'click', selector: '#tab-price' },
        { type: 'wait', milliseconds: 50 },
        { type: 'scrape' },
        { type: 'executeJavascript', script: "document.querySelector('#price p').textContent" },
        { type: 'executeJavascript', script: 'const n = 2; return { n, title: document.title };' },
        { type: 'press', key: 'ENTER' },
        { type: 'scroll', direction: 'down' },
        { type: 'screenshot', fullPage: false },
      ],
    });
    // The page's markdown is read after the steps: the price the click revealed is in it.
    expect(doc.markdown).toContain('Price: 19.99 EUR');
    const actions = doc.actions as any;
    expect(actions.scrapes).toHaveLength(2);
    expect(actions.scrapes[0].url).toBe('http://www.shop.test/kettle');
    expect(actions.scrapes[0].html).toMatch(/<div id="price" hidden="">/);
    expect(actions.scrapes[1].html).toMatch(/<div id="price">/);
    expect(actions.scrapes[1].markdown).toContain('Price: 19.99 EUR');
    expect(actions.javascriptReturns).toEqual([
      { type: 'string', value: 'Price: 19.99 EUR, delivered to your door within three working days.' },
      { type: 'object', value: { n: 2, title: 'Kettle' } },
    ]);
    expect(actions.pdfs).toEqual([]);
    expect(actions.screenshots).toHaveLength(1);
    expect(pngSize(await fetchPng(actions.screenshots[0]))).toEqual({ width: 1280, height: 800 });
  }, 60_000);

  it("a step that cannot be done: Firecrawl's error shape naming the step, charged: the caller's steps ran", async () => {
    const before = await svc.credits(accountId);
    await expect(
      fc.scrape('http://www.shop.test/kettle', {
        formats: ['markdown'],
        actions: [
          { type: 'click', selector: '#tab-price' },
          { type: 'click', selector: '#no-such-button' },
        ],
      }),
    ).rejects.toMatchObject({
      status: 422,
      code: 'action_failed',
      message: expect.stringMatching(/^actions\[1\]: no element matches '#no-such-button' within \d+ ms/),
    });
    expect(await svc.credits(accountId)).toBe(before - 1);
  }, 60_000);

  it('headers reach the target site only; mobile and location reach the page', async () => {
    seen.length = 0;
    const doc = await fc.scrape('http://www.shop.test/probe', {
      formats: ['markdown', 'screenshot'],
      headers: { 'X-Shop-Token': 'token-42' },
      mobile: true,
      location: { country: 'DE', languages: ['de-DE'] },
    });
    expect(doc.markdown).toContain('Browser language de-DE, touch points');
    expect(doc.markdown).toMatch(/width 412\./);
    const target = at('www.shop.test', '/probe');
    expect(target.length).toBeGreaterThan(0);
    for (const s of target) {
      expect(s.headers['x-shop-token']).toBe('token-42');
      expect(s.headers['user-agent']).toMatch(/Android .*Mobile/);
      expect(s.headers['accept-language']).toMatch(/^de-DE/);
    }
    const third = at('third.test', '/pixel.png');
    expect(third.length).toBeGreaterThan(0);
    for (const s of third) expect(s.headers['x-shop-token']).toBeUndefined();
    expect(pngSize(await fetchPng(doc.screenshot!))).toEqual({ width: 412, height: 915 });
    // Over HTTP too (no browser asked): the device's user agent and the language.
    seen.length = 0;
    await fc.scrape('http://www.shop.test/cached', { mobile: true, location: { country: 'FR' } });
    expect(at('www.shop.test', '/cached')[0].headers).toMatchObject({
      'user-agent': expect.stringMatching(/Android/),
      'accept-language': expect.stringMatching(/^fr-FR/),
    });
  }, 60_000);

  it('maxAge: the second scrape is answered from the cache (metadata.cacheState), each costing a credit', async () => {
    const before = await svc.credits(accountId);
    seen.length = 0;
    const first = await fc.scrape('http://www.shop.test/cached', { formats: ['markdown'], maxAge: 600_000 });
    expect(first.metadata?.cacheState).toBe('miss');
    const second = await fc.scrape('http://www.shop.test/cached', { formats: ['markdown'], maxAge: 600_000 });
    expect(second.metadata?.cacheState).toBe('hit');
    expect(second.metadata?.cachedAt).toEqual(expect.any(String));
    expect(second.markdown).toBe(first.markdown);
    expect(at('www.shop.test', '/cached')).toHaveLength(1);
    // maxAge 0 reads fresh and says nothing of the cache.
    const fresh = await fc.scrape('http://www.shop.test/cached', { formats: ['markdown'], maxAge: 0 });
    expect(fresh.metadata?.cacheState).toBeUndefined();
    expect(at('www.shop.test', '/cached')).toHaveLength(2);
    expect(await svc.credits(accountId)).toBe(before - 3);
  }, 60_000);

  it('batch scrape and a crawl take the same options: each page clicked and screenshotted', async () => {
    const batch = await fc.batchScrape(['http://www.shop.test/kettle', 'http://www.shop.test/kettle?b=2'], {
      options: {
        formats: ['markdown', 'screenshot'],
        actions: [{ type: 'click', selector: '#tab-price' }],
        waitFor: 100,
      },
      pollInterval: 1,
      timeout: 60,
    });
    expect(batch.status).toBe('completed');
    expect(batch.data).toHaveLength(2);
    for (const d of batch.data) {
      expect(d.markdown).toContain('Price: 19.99 EUR');
      expect(pngSize(await fetchPng(d.screenshot!))).toEqual({ width: 1280, height: 800 });
    }
    seen.length = 0;
    const crawl = await fc.crawl('http://www.shop.test/kettle', {
      limit: 5,
      sitemap: 'skip',
      scrapeOptions: {
        formats: ['markdown', { type: 'screenshot', viewport: { width: 640, height: 480 } }],
        headers: { 'X-Shop-Token': 'crawl-7' },
      },
      pollInterval: 1,
      timeout: 60,
    });
    expect(crawl.status).toBe('completed');
    expect(crawl.data.map((d) => new URL(d.metadata!.url as string).pathname).sort()).toEqual([
      '/kettle',
      '/kettle/specs',
    ]);
    for (const d of crawl.data) expect(pngSize(await fetchPng(d.screenshot!))).toEqual({ width: 640, height: 480 });
    for (const p of ['/kettle', '/kettle/specs'])
      expect(at('www.shop.test', p).map((s) => s.headers['x-shop-token'])).toContain('crawl-7');
    for (const s of at('third.test', '/pixel.png')) expect(s.headers['x-shop-token']).toBeUndefined();
  }, 120_000);

  it('the v1 client: screenshot@fullPage and actions in its shapes', async () => {
    const v1 = new FirecrawlAppV1({ apiKey: key, apiUrl: `${svc.url}/firecrawl` });
    const r = await v1.scrapeUrl('http://www.shop.test/kettle', {
      formats: ['markdown', 'screenshot@fullPage'],
      actions: [
        { type: 'click', selector: '#tab-price' },
        { type: 'executeJavascript', script: 'document.title' },
        { type: 'executeJavascript', script: '() => document.querySelectorAll("button").length' },
      ],
    });
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(r.markdown).toContain('Price: 19.99 EUR');
    expect(isPng(await fetchPng(r.screenshot!))).toBe(true);
    expect(r.actions.javascriptReturns).toEqual([
      { type: 'string', value: 'Kettle' },
      { type: 'number', value: 1 },
    ]);
  }, 60_000);
});
