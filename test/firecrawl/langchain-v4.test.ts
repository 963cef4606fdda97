/**
 * LangChain's FireCrawlLoader as installed beside @mendable/firecrawl-js 4: the loader calls the
 * v2 client's v1-style aliases (`scrapeUrl`, `crawlUrl`) and checks `success` on what they return,
 * but those return the Document / the crawl job itself, which has no `success` — so the loader
 * throws "Failed to scrape URL. Error: undefined" after Trawl has answered 200 (the credit is
 * spent). This records that the failure is the loader's, whatever server answers; with the v1
 * client (langchain.test.ts) the loader works against Trawl.
 */
import { FireCrawlLoader } from '@langchain/community/document_loaders/web/firecrawl';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { startTestSite, type TestSite } from './site.js';

let svc: TestService;
let t: TestSite;

beforeAll(async () => {
  t = await startTestSite();
  svc = await startTestService('sqlite');
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await t?.close();
});

it('fails in the loader after a successful answer (firecrawl-js 4 returns no `success`)', async () => {
  const { key, accountId } = await svc.newKey(5);
  const loader = new FireCrawlLoader({
    url: `${t.site.url}/blog/tides`,
    apiKey: key,
    apiUrl: `${svc.url}/firecrawl`,
    mode: 'scrape',
    params: { formats: ['markdown'] },
  });
  await expect(loader.load()).rejects.toThrow('Firecrawl: Failed to scrape URL. Error: undefined');
  // Trawl answered the scrape (200, one credit kept): the loader misread the answer.
  expect(await svc.credits(accountId)).toBe(4);
});
