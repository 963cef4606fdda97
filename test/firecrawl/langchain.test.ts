/**
 * LangChain's FireCrawlLoader (@langchain/community) against Trawl's /firecrawl, in scrape, crawl
 * and map modes. The loader calls `scrapeUrl`/`crawlUrl`/`mapUrl` and checks `success` on their
 * answers — the v1 client's API, which @mendable/firecrawl-js 4 ships as FirecrawlAppV1 (its
 * default export became the v2 client, whose answers have no `success`: langchain-v4.test.ts).
 * A Node resolve hook gives the loader that v1 client, as a project pinned to
 * @mendable/firecrawl-js 1.x has it; the loader's own code runs unchanged.
 */
import { register } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { startTestSite, type TestSite } from './site.js';

register(new URL('./fixtures/v1-resolve-hook.mjs', import.meta.url));
const { FireCrawlLoader } = await import('@langchain/community/document_loaders/web/firecrawl');

let svc: TestService;
let t: TestSite;
let key: string;
let accountId: string;

beforeAll(async () => {
  t = await startTestSite();
  svc = await startTestService('sqlite');
  ({ key, accountId } = await svc.newKey(20));
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await t?.close();
});

describe("LangChain's FireCrawlLoader against Trawl", () => {
  it('scrape mode: one Document with the page as markdown and its metadata', async () => {
    const before = await svc.credits(accountId);
    const docs = await new FireCrawlLoader({
      url: `${t.site.url}/blog/tides`,
      apiKey: key,
      apiUrl: `${svc.url}/firecrawl`,
      mode: 'scrape',
      params: { formats: ['markdown'] },
    }).load();
    expect(docs).toHaveLength(1);
    expect(docs[0].pageContent).toContain('gravitational pull of the Moon');
    expect(docs[0].metadata).toMatchObject({
      title: 'Why tides turn',
      sourceURL: `${t.site.url}/blog/tides`,
      statusCode: 200,
    });
    expect(await svc.credits(accountId)).toBe(before - 1);
  });

  it('crawl mode: a Document per page of the site', async () => {
    const docs = await new FireCrawlLoader({
      url: t.site.url,
      apiKey: key,
      apiUrl: `${svc.url}/firecrawl`,
      mode: 'crawl',
      params: { limit: 10, maxDiscoveryDepth: 1, ignoreSitemap: true, scrapeOptions: { formats: ['markdown'] } },
    }).load();
    const byUrl = new Map(docs.map((d) => [d.metadata.sourceURL, d.pageContent]));
    expect([...byUrl.keys()].sort()).toEqual(
      ['/', '/blog/tides', '/docs/intro', '/docs/setup', '/product/anchor'].map((p) => `${t.site.url}${p}`).sort(),
    );
    expect(byUrl.get(`${t.site.url}/docs/setup`)).toContain('a wrench, a rope');
    expect(byUrl.get(`${t.site.url}/`)).toContain('makers of anchors and ropes');
  });

  it('map mode: a Document per URL', async () => {
    const docs = await new FireCrawlLoader({
      url: t.site.url,
      apiKey: key,
      apiUrl: `${svc.url}/firecrawl`,
      mode: 'map',
      params: {},
    }).load();
    expect(docs.map((d) => JSON.parse(d.pageContent))).toEqual(
      expect.arrayContaining([`${t.site.url}/docs/intro`, `${t.site.url}/product/anchor`]),
    );
  });
});
