/**
 * Firecrawl's official JavaScript SDK (@mendable/firecrawl-js 4, its v2 client), unchanged, with
 * `apiUrl = {trawl}/firecrawl` and a Trawl key, against a local Trawl and the local fixture site:
 * scrape (markdown, html, links, json from a JSON Schema), crawl and wait, start + status +
 * cancel, errors, batch scrape (with `next` pages followed by the SDK), map, search with
 * scrapeOptions, extract, credit usage — each answer carrying the fixture's content.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { articlePage } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startTestSite, type TestSite } from './site.js';

let svc: TestService;
let t: TestSite;
let key: string;
let accountId: string;
let fc: Firecrawl;

beforeAll(async () => {
  t = await startTestSite();
  // 120 pages of ~100 KB: more than one status answer holds (Firecrawl pages them by 10 MB).
  const filler = Array.from(
    { length: 1000 },
    (_, k) =>
      `<p>Paragraph ${k} of a long page, written out so the page weighs about a hundred kilobytes in all, like a long manual.</p>`,
  ).join('');
  for (let i = 0; i < 120; i++)
    t.site.route(
      `/many/${i}`,
      articlePage(
        `Many ${i}`,
        `<p>Page number ${i} of the many pages, with words enough to be its main content.</p>${filler}`,
      ),
    );
  for (let i = 0; i < 30; i++) {
    t.site.route(`/slow/${i}`, async (_q, res) => {
      await new Promise((r) => setTimeout(r, 400));
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          articlePage(
            `Slow ${i}`,
            `<p>Slow page ${i}. ${Array.from({ length: 30 }, (_, k) => `<a href="/slow/${k}">s${k}</a>`).join(' ')}</p>`,
          ),
        );
    });
  }
  svc = await startTestService('sqlite', { SEARXNG_URL: t.searx.url });
  ({ key, accountId } = await svc.newKey(100));
  fc = new Firecrawl({ apiKey: key, apiUrl: `${svc.url}/firecrawl` });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await t?.close();
});

describe('@mendable/firecrawl-js v4 (v2 API) against Trawl', () => {
  it('scrapes markdown, html and links with Firecrawl metadata; one credit', async () => {
    const before = await svc.credits(accountId);
    const doc = await fc.scrape(`${t.site.url}/blog/tides`, { formats: ['markdown', 'html', 'links'] });
    expect(doc.markdown).toContain('gravitational pull of the Moon');
    expect(doc.html).toContain('<h1>Why tides turn</h1>');
    expect(doc.rawHtml).toBeUndefined();
    expect(Array.isArray(doc.links)).toBe(true);
    expect(doc.metadata).toMatchObject({
      title: 'Why tides turn',
      sourceURL: `${t.site.url}/blog/tides`,
      url: `${t.site.url}/blog/tides`,
      statusCode: 200,
      contentType: 'text/html',
    });
    expect(await svc.credits(accountId)).toBe(before - 1);
  });

  it('scrapes json from a JSON Schema (here made from a Zod schema)', async () => {
    const schema = z.toJSONSchema(
      z.object({ name: z.string(), price: z.number(), sku: z.string(), in_stock: z.boolean() }),
    );
    const doc = await fc.scrape(`${t.site.url}/product/anchor`, { formats: ['markdown', { type: 'json', schema }] });
    expect(doc.json).toEqual({ name: 'Galvanised Anchor', price: 129.5, sku: 'ANC-12', in_stock: true });
    expect(doc.markdown).toContain('12 kg galvanised anchor');
  });

  it('crawls and waits: the site under its start path, sitemap included, robots.txt honoured', async () => {
    const before = await svc.credits(accountId);
    const job = await fc.crawl(t.site.url, {
      limit: 20,
      scrapeOptions: { formats: ['markdown'] },
      pollInterval: 1,
      timeout: 60,
    });
    expect(job.status).toBe('completed');
    const byUrl = new Map(job.data.map((d) => [d.metadata?.sourceURL, d]));
    for (const p of ['/docs/intro', '/docs/setup', '/blog/tides', '/product/anchor', '/docs/deep/one'])
      expect(byUrl.has(`${t.site.url}${p}`), p).toBe(true);
    expect(byUrl.get(`${t.site.url}/docs/setup`)?.markdown).toContain('a wrench, a rope');
    expect(byUrl.has(`${t.site.url}/private/notes`)).toBe(false);
    expect(job.completed).toBe(job.data.length);
    expect(job.creditsUsed).toBe(1);
    // One credit for the job, none for the polls.
    expect(await svc.credits(accountId)).toBe(before - 1);
    const errors = await fc.getCrawlErrors(job.id);
    expect(errors.robotsBlocked).toEqual([`${t.site.url}/private/notes`]);
    expect(errors.errors).toEqual([
      expect.objectContaining({
        url: `${t.site.url}/gone`,
        code: 'fetch_failed',
        error: expect.stringContaining('404'),
      }),
    ]);
  });

  it('crawls with includePaths (regex), maxDiscoveryDepth and sitemap "skip"', async () => {
    const job = await fc.crawl(`${t.site.url}/`, {
      includePaths: ['^/docs/[a-z]+$'],
      maxDiscoveryDepth: 1,
      sitemap: 'skip',
      pollInterval: 1,
      timeout: 60,
    });
    const urls = job.data.map((d) => d.metadata?.sourceURL).sort();
    // The start page, then its links that match: /docs/deep/one is two hops and deeper than the pattern.
    expect(urls).toEqual([`${t.site.url}/`, `${t.site.url}/docs/intro`, `${t.site.url}/docs/setup`].sort());
  });

  it('keeps to the start path unless crawlEntireDomain', async () => {
    const under = await fc.crawl(`${t.site.url}/docs/intro`, { pollInterval: 1, timeout: 60, sitemap: 'skip' });
    expect(under.data.map((d) => d.metadata?.sourceURL).sort()).toEqual([`${t.site.url}/docs/intro`]);
    const entire = await fc.crawl(`${t.site.url}/docs/intro`, {
      crawlEntireDomain: true,
      maxDiscoveryDepth: 1,
      sitemap: 'skip',
      pollInterval: 1,
      timeout: 60,
    });
    expect(entire.data.map((d) => d.metadata?.sourceURL).sort()).toEqual([
      `${t.site.url}/docs/deep/one`,
      `${t.site.url}/docs/intro`,
      `${t.site.url}/docs/setup`,
    ]);
  });

  it('starts a crawl, reads its status, lists it as active, cancels it; the pages done are kept', async () => {
    const started = await fc.startCrawl(`${t.site.url}/slow/0`, {
      crawlEntireDomain: true,
      limit: 30,
      sitemap: 'skip',
    });
    expect(started.id).toMatch(/^job_/);
    expect(started.url).toBe(`${svc.url}/firecrawl/v2/crawl/${started.id}`);
    const status = await fc.getCrawlStatus(started.id);
    expect(['scraping', 'completed']).toContain(status.status);
    const active = await fc.getActiveCrawls();
    expect(active.crawls).toContainEqual({
      id: started.id,
      teamId: accountId,
      url: `${t.site.url}/slow/0`,
      options: null,
    });
    expect(await fc.cancelCrawl(started.id)).toBe(true);
    expect((await fc.getActiveCrawls()).crawls.map((c) => c.id)).not.toContain(started.id);
    const after = await fc.getCrawlStatus(started.id);
    expect(after.status).toBe('cancelled');
    expect(after.total).toBeLessThanOrEqual(30);
    expect(after.completed).toBeLessThan(30);
    for (const d of after.data) expect(d.markdown).toMatch(/Slow page \d+/);
  });

  it('batch scrapes 120 URLs of ~100 KB; the SDK follows `next` to read them all', async () => {
    const urls = Array.from({ length: 120 }, (_, i) => `${t.site.url}/many/${i}`);
    const job = await fc.batchScrape(urls, { options: { formats: ['markdown'] }, pollInterval: 1, timeout: 60 });
    expect(job.status).toBe('completed');
    expect(job.total).toBe(120);
    expect(job.completed).toBe(120);
    expect(job.data).toHaveLength(120);
    expect(new Set(job.data.map((d) => d.metadata?.sourceURL))).toEqual(new Set(urls));
    expect(job.data.find((d) => d.metadata?.sourceURL === `${t.site.url}/many/77`)?.markdown).toContain(
      'Page number 77',
    );
    // Without auto-pagination the first answer stops near 10 MB and names the next page.
    const first = await fc.getBatchScrapeStatus(job.id, { autoPaginate: false });
    expect(first.data.length).toBeGreaterThan(50);
    expect(first.data.length).toBeLessThan(120);
    expect(first.next).toBe(`${svc.url}/firecrawl/v2/batch/scrape/${job.id}?skip=${first.data.length}`);
  });

  it('starts a batch, cancels it; another account cannot see it', async () => {
    const started = await fc.startBatchScrape(
      Array.from({ length: 20 }, (_, i) => `${t.site.url}/slow/${i}`),
      { options: { formats: ['markdown'] } },
    );
    expect(started.url).toBe(`${svc.url}/firecrawl/v2/batch/scrape/${started.id}`);
    expect(await fc.cancelBatchScrape(started.id)).toBe(true);
    expect((await fc.getBatchScrapeStatus(started.id)).status).toBe('cancelled');
    const other = new Firecrawl({ apiKey: (await svc.newKey(5)).key, apiUrl: `${svc.url}/firecrawl` });
    await expect(other.getBatchScrapeStatus(started.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(other.getCrawlStatus(started.id)).rejects.toMatchObject({ status: 404 });
  });

  it('maps the site (links as {url, title}), ranked by search', async () => {
    const all = await fc.map(t.site.url);
    const urls = all.links.map((l) => l.url);
    for (const p of ['/docs/intro', '/docs/setup', '/blog/tides', '/product/anchor'])
      expect(urls).toContain(`${t.site.url}${p}`);
    expect(all.links.find((l) => l.url === `${t.site.url}/docs/intro`)?.title).toBe('Intro');
    const ranked = await fc.map(t.site.url, { search: 'tides', limit: 2 });
    expect(ranked.links[0].url).toBe(`${t.site.url}/blog/tides`);
    expect(ranked.links).toHaveLength(2);
  });

  it('searches, with and without scraping the results', async () => {
    const plain = await fc.search('harbour tides', { limit: 3 });
    expect(plain.web?.map((r) => (r as { url: string }).url)).toEqual([
      `${t.site.url}/blog/tides`,
      `${t.site.url}/docs/setup`,
      `${t.site.url}/product/anchor`,
    ]);
    expect(plain.web?.[0]).toMatchObject({
      title: 'Why tides turn',
      description: 'An explainer on tides and the Moon',
    });
    expect((plain.web?.[0] as { markdown?: string }).markdown).toBeUndefined();
    const scraped = await fc.search('what causes tides moon', { limit: 3, scrapeOptions: { formats: ['markdown'] } });
    const top = scraped.web?.[0] as { url: string; markdown?: string; metadata?: Record<string, unknown> };
    expect(top.url).toBe(`${t.site.url}/blog/tides`);
    expect(top.markdown).toContain('gravitational pull of the Moon');
    expect(top.metadata).toMatchObject({ sourceURL: `${t.site.url}/blog/tides` });
  });

  it("extracts at once through Trawl's extractor", async () => {
    const r = await fc.extract({
      urls: [`${t.site.url}/product/anchor`],
      schema: {
        type: 'object',
        properties: { name: { type: 'string' }, price: { type: 'number' } },
        required: ['name'],
      },
    });
    expect(r).toMatchObject({ success: true, status: 'completed', data: { name: 'Galvanised Anchor', price: 129.5 } });
  });

  it('reports the credits left', async () => {
    const usage = await fc.getCreditUsage();
    expect(usage.remainingCredits).toBe(await svc.credits(accountId));
  });

  it("answers failures in Firecrawl's shape the SDK reads (status, message, code)", async () => {
    const before = await svc.credits(accountId);
    await expect(fc.scrape(`${t.site.url}/gone`)).rejects.toMatchObject({
      status: 502,
      code: 'fetch_failed',
      message: expect.stringContaining('404'),
    });
    await expect(
      fc.scrape(`${t.site.url}/blog/tides`, { formats: [{ type: 'changeTracking', modes: [] }] }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('formats[0]'),
    });
    // Failures cost nothing.
    expect(await svc.credits(accountId)).toBe(before);
    const nobody = new Firecrawl({
      apiKey: 'trawl_notakeyofanyone0000000000000000000',
      apiUrl: `${svc.url}/firecrawl`,
    });
    await expect(nobody.scrape(`${t.site.url}/`)).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });
});
