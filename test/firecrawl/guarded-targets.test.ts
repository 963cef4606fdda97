/**
 * A service that may not reach private addresses (no TRAWL_ALLOW_PRIVATE_NETWORK): a crawl whose
 * start page is refused — on a private address, or a public site whose robots.txt redirects to
 * one — answers 403 and the process lives on (the sitemap read started beside the start page
 * was a rejection nobody awaited: it ended the process); /firecrawl's crawl refuses a private
 * start URL before charging, as /v1/crawl does; a batch with no public URL and an extract of
 * private URLs are 403 on both surfaces; a batch takes each URL once, however spelled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../src/store/index.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let site: FixtureServer;
const unheard: unknown[] = [];
const listen = (e: unknown) => void unheard.push(e);

beforeAll(async () => {
  site = await startFixtureServer({
    '/': '<html><body><article><h1>Home</h1><p>Words on the page.</p></article></body></html>',
  });
  // "public.test" is pinned to the fixture (an operator's pin is trusted); its robots.txt sends the crawler to 127.0.0.1.
  site.route(
    '/robots.txt',
    (_q, res) => void res.writeHead(302, { location: `http://127.0.0.1:${site.port}/inside` }).end(),
  );
  svc = await startTestService('sqlite', {
    TRAWL_ALLOW_PRIVATE_NETWORK: '0',
    TRAWL_RESOLVE: `public.test=127.0.0.1:${site.port}`,
  });
  process.on('unhandledRejection', listen);
}, 60_000);
afterAll(async () => {
  process.off('unhandledRejection', listen);
  await svc?.stop();
  await site?.close();
});

const settle = () => new Promise((r) => setTimeout(r, 200));

describe('refused crawl targets', () => {
  it('a synchronous /v1/crawl of a private address is a 403, and no rejection goes unheard', async () => {
    const { key } = await svc.newKey(10);
    const r = await svc.post('/v1/crawl', { url: `${site.url}/`, limit: 2 }, key);
    expect(r.status).toBe(403);
    expect(((await r.json()) as { error: string }).error).toBe('forbidden_target');
    await settle();
    expect(unheard).toEqual([]);
  });

  it('a public site whose robots.txt redirects to a private address: the crawl fails, the process does not', async () => {
    const { key } = await svc.newKey(10);
    const r = await svc.post('/v1/crawl', { url: 'http://public.test/', limit: 2 }, key);
    expect(r.status).toBe(403);
    await settle();
    expect(unheard).toEqual([]);
    // Still serving.
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  });

  it('/firecrawl crawl of a private start URL: 403 in Firecrawl shape, no job, no credit', async () => {
    const { key, accountId } = await svc.newKey(10);
    for (const v of ['v1', 'v2']) {
      const r = await svc.post(`/firecrawl/${v}/crawl`, { url: `http://localhost:${site.port}/` }, key);
      expect(r.status).toBe(403);
      expect(await r.json()).toMatchObject({
        success: false,
        code: 'forbidden_target',
        error: expect.stringContaining('loopback'),
      });
    }
    expect(await svc.credits(accountId)).toBe(10);
    expect(await jobs.listJobs(svc.store.db, accountId, 10)).toEqual([]);
  });

  it('a batch with no public URL is refused at once (403, no job, no credit), on both surfaces', async () => {
    const { key, accountId } = await svc.newKey(10);
    const urls = [`${site.url}/a`, `http://localhost:${site.port}/b`, 'http://10.0.0.7/c'];
    const v1 = await svc.post('/v1/batch/scrape', { urls }, key);
    expect(v1.status).toBe(403);
    expect(await v1.json()).toMatchObject({ error: 'forbidden_target', detail: expect.stringContaining('urls:') });
    const fc = await svc.post('/firecrawl/v1/batch/scrape', { urls }, key);
    expect(fc.status).toBe(403);
    expect(await fc.json()).toMatchObject({ success: false, code: 'forbidden_target' });
    expect(await svc.credits(accountId)).toBe(10);
    expect(await jobs.listJobs(svc.store.db, accountId, 10)).toEqual([]);
    // One public URL among them: taken, its private URLs fail page by page.
    const mixed = await svc.post('/v1/batch/scrape', { urls: [...urls, 'http://public.test/'] }, key);
    expect(mixed.status).toBe(202);
  });

  it('a batch of more private address literals than the host names it resolves is still refused at once', async () => {
    const { key, accountId } = await svc.newKey(10);
    // 1,000 distinct private addresses: no lookup is needed to refuse them all (names stop at 200).
    const urls = Array.from({ length: 1000 }, (_, i) => `http://10.1.${i >> 8}.${i & 255}/`);
    const r = await svc.post('/v1/batch/scrape', { urls }, key);
    expect(r.status).toBe(403);
    expect(await svc.credits(accountId)).toBe(10);
    expect(await jobs.listJobs(svc.store.db, accountId, 10)).toEqual([]);
  });

  it('a batch scrapes a URL once whatever its spelling (fragment, host case, default port, dot segments)', async () => {
    const { key, accountId } = await svc.newKey(10);
    const spellings = [
      'http://public.test/a',
      'http://public.test/a#x',
      'http://PUBLIC.test/a',
      'http://public.test:80/a',
      'http://public.test/./a',
      'http://public.test/b/../a',
    ];
    const r = await svc.post('/v1/batch/scrape', { urls: [...spellings, 'http://public.test/a?q=1'] }, key);
    expect(r.status).toBe(202);
    const job = ((await r.json()) as any).job;
    expect(job.progress.queued + job.progress.done + job.progress.failed).toBe(2);
    const [row] = await jobs.listJobs(svc.store.db, accountId, 1);
    expect(Number(row.total)).toBe(2);
  });

  it('extract of private URLs is 403 forbidden_target on both surfaces, not 502, and free', async () => {
    const { key, accountId } = await svc.newKey(10);
    const schema = { type: 'object', properties: { title: { type: 'string' } } };
    const v1 = await svc.post('/v1/extract', { urls: [`${site.url}/`], schema: { title: 'string' } }, key);
    expect(v1.status).toBe(403);
    expect(await v1.json()).toMatchObject({ error: 'forbidden_target' });
    for (const v of ['v1', 'v2']) {
      const r = await svc.post(`/firecrawl/${v}/extract`, { urls: [`http://localhost:${site.port}/`], schema }, key);
      expect(r.status, v).toBe(403);
      expect(await r.json()).toMatchObject({ success: false, code: 'forbidden_target' });
    }
    expect(await svc.credits(accountId)).toBe(10);
  });
});
