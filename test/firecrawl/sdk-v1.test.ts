/**
 * The v1 client that @mendable/firecrawl-js 4 still ships (FirecrawlAppV1, also `firecrawl.v1`:
 * Firecrawl's feature-frozen v1 SDK, what older loaders call) against Trawl's /firecrawl/v1:
 * scrape (markdown, json via jsonOptions, v1's `extract`), crawl and wait, async crawl + status +
 * errors + cancel, batch scrape, map, search (with the v1 defaults the SDK always sends), extract
 * (which polls GET /v1/extract/{id}), credit usage.
 */
import Firecrawl, { FirecrawlAppV1 } from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startTestSite, type TestSite } from './site.js';

let svc: TestService;
let t: TestSite;
let key: string;
let accountId: string;
let v1: FirecrawlAppV1;

beforeAll(async () => {
  t = await startTestSite();
  for (let i = 0; i < 20; i++) {
    t.site.route(`/slow/${i}`, async (_q, res) => {
      await new Promise((r) => setTimeout(r, 400));
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          articlePage(
            `Slow ${i}`,
            `<p>Slow page ${i}. ${Array.from({ length: 20 }, (_, k) => `<a href="/slow/${k}">s${k}</a>`).join(' ')}</p>`,
          ),
        );
    });
  }
  svc = await startTestService('sqlite', { SEARXNG_URL: t.searx.url });
  ({ key, accountId } = await svc.newKey(100));
  v1 = new FirecrawlAppV1({ apiKey: key, apiUrl: `${svc.url}/firecrawl` });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await t?.close();
});

// A JSON Schema, as v1's wire format takes it (the client's types say Zod; it converts those first).

const schema: any = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' }, sku: { type: 'string' } },
};

describe('Firecrawl v1 SDK (FirecrawlAppV1) against Trawl', () => {
  it('is the same client the unified SDK hands out as .v1', () => {
    expect(new Firecrawl({ apiKey: key, apiUrl: `${svc.url}/firecrawl` }).v1).toBeInstanceOf(FirecrawlAppV1);
  });

  it('scrapes markdown and json (jsonOptions), and v1 "extract"', async () => {
    const r = await v1.scrapeUrl(`${t.site.url}/product/anchor`, {
      formats: ['markdown', 'json'],
      jsonOptions: { schema },
    });
    if (!r.success) throw new Error(r.error);
    expect(r.markdown).toContain('12 kg galvanised anchor');
    expect(r.json).toEqual({ name: 'Galvanised Anchor', price: 129.5, sku: 'ANC-12' });
    expect(r.metadata).toMatchObject({
      title: 'Galvanised Anchor',
      sourceURL: `${t.site.url}/product/anchor`,
      statusCode: 200,
    });
    const e = await v1.scrapeUrl(`${t.site.url}/product/anchor`, { formats: ['extract'], extract: { schema } });
    if (!e.success) throw new Error(e.error);
    expect(e.extract).toEqual({ name: 'Galvanised Anchor', price: 129.5, sku: 'ANC-12' });
    expect(e.json).toBeUndefined();
    expect(e.markdown).toBeUndefined();
  });

  it('crawls and waits, with v1 maxDepth as path depth', async () => {
    const r = await v1.crawlUrl(
      t.site.url,
      { limit: 20, maxDepth: 1, ignoreSitemap: true, scrapeOptions: { formats: ['markdown'] } },
      1,
    );
    if (!r.success) throw new Error(r.error);
    expect(r.status).toBe('completed');
    const urls = r.data.map((d) => d.metadata?.sourceURL).sort();
    // maxDepth 1: one path segment at most — /docs/intro is two, so only the start page answers.
    expect(urls).toEqual([`${t.site.url}/`]);
    const deeper = await v1.crawlUrl(t.site.url, { limit: 20, maxDepth: 2, ignoreSitemap: true }, 1);
    if (!deeper.success) throw new Error(deeper.error);
    const paths = deeper.data.map((d) => new URL(d.metadata!.sourceURL!).pathname).sort();
    expect(paths).toEqual(['/', '/blog/tides', '/docs/intro', '/docs/setup', '/product/anchor']);
    expect(deeper.data.find((d) => d.metadata?.sourceURL?.endsWith('/blog/tides'))?.markdown).toContain('Moon');
  });

  it('starts a crawl, reads its status and errors, cancels it', async () => {
    const started = await v1.asyncCrawlUrl(`${t.site.url}/slow/0`, {
      limit: 20,
      allowBackwardLinks: true,
      ignoreSitemap: true,
    });
    if (!started.success) throw new Error(started.error);
    expect(started.url).toBe(`${svc.url}/firecrawl/v1/crawl/${started.id}`);
    const status = await v1.checkCrawlStatus(started.id);
    if (!status.success) throw new Error(status.error);
    expect(['scraping', 'completed']).toContain(status.status);
    const errors = await v1.checkCrawlErrors(started.id!);
    expect(errors).toMatchObject({ errors: [], robotsBlocked: [] });
    expect(await v1.cancelCrawl(started.id!)).toMatchObject({ success: true, status: 'cancelled' });
    const after = await v1.checkCrawlStatus(started.id);
    expect(after).toMatchObject({ success: true, status: 'cancelled' });
  });

  it('batch scrapes and waits', async () => {
    const urls = ['/docs/intro', '/docs/setup', '/blog/tides'].map((p) => `${t.site.url}${p}`);
    const r = await v1.batchScrapeUrls(urls, { formats: ['markdown'] }, 1);
    if (!r.success) throw new Error(r.error);
    expect(r.status).toBe('completed');
    expect(r.data.map((d) => d.metadata?.sourceURL).sort()).toEqual([...urls].sort());
    expect(r.data.find((d) => d.metadata?.sourceURL === urls[1])?.markdown).toContain('a wrench, a rope');
  });

  it('maps (links as strings) and searches (with the defaults v1 sends)', async () => {
    const m = await v1.mapUrl(t.site.url, {});
    if (!m.success) throw new Error(m.error);
    expect(m.links).toEqual(expect.arrayContaining([`${t.site.url}/docs/intro`, `${t.site.url}/blog/tides`]));
    const s = await v1.search('tides', { limit: 2 });
    expect(s.success).toBe(true);
    expect(s.data.map((d) => d.url)).toEqual([`${t.site.url}/blog/tides`, `${t.site.url}/docs/setup`]);
    expect(s.data[0]).toMatchObject({ title: 'Why tides turn', description: 'An explainer on tides and the Moon' });
    const scraped = await v1.search('tides moon', { limit: 1, scrapeOptions: { formats: ['markdown'] } });
    expect(scraped.data[0].markdown).toContain('gravitational pull of the Moon');
  });

  it('extracts (the SDK polls GET /v1/extract/{id}) and reports credits', async () => {
    const r = await v1.extract([`${t.site.url}/product/anchor`], { schema, prompt: 'the product' });
    expect(r).toMatchObject({ success: true, data: { name: 'Galvanised Anchor', price: 129.5, sku: 'ANC-12' } });
    const usage = await v1.getCreditUsage();
    expect(usage).toMatchObject({ success: true, data: { remaining_credits: await svc.credits(accountId) } });
  });

  it("surfaces Trawl's errors through the v1 client", async () => {
    // The v1 client words only 400, 402, 403, 408, 409 and 500 answers with their error; a 502 keeps its status.
    await expect(v1.scrapeUrl(`${t.site.url}/gone`, { formats: ['markdown'] })).rejects.toMatchObject({
      statusCode: 502,
    });
    await expect(
      v1.scrapeUrl(`${t.site.url}/`, { formats: ['markdown'], includeTags: ['main'] }),
    ).rejects.toMatchObject({ statusCode: 400, message: expect.stringContaining('includeTags: not supported') });
  });
});
