/**
 * A job's checks run in one order on every surface (app/jobs.ts's openJob): the body's shape (the
 * webhook's included), then whether the account has a credit at all (the contract's credits before
 * work: no lookups for an account with none), then its targets (a crawl's start URL, a batch's
 * URLs), then the webhook's URL, then the credit reserved. A request wrong in two ways gets the same answer from /v1 and /firecrawl.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../src/store/index.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({ '/': '<html><body><p>Words.</p></body></html>' });
  // "public.test" is pinned to the fixture (an operator's pin is trusted): a reachable target.
  svc = await startTestService('sqlite', {
    TRAWL_ALLOW_PRIVATE_NETWORK: '0',
    TRAWL_RESOLVE: `public.test=127.0.0.1:${site.port}`,
  });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await site?.close();
});

const PRIVATE = ['http://10.0.0.7/a', 'http://127.0.0.1/b'];
const HOOK = 'http://10.0.0.9/hook';

describe('a job’s checks: shape → targets → webhook URL → credit, on every surface', () => {
  it('the webhook’s shape comes before the targets', async () => {
    const { key, accountId } = await svc.newKey(10);
    const crawl = await svc.post('/v1/crawl', { url: PRIVATE[0], async: true, webhook_events: ['job.page'] }, key);
    expect(crawl.status).toBe(400);
    expect(await crawl.json()).toMatchObject({
      error: 'invalid_request',
      detail: expect.stringContaining('webhook_events'),
    });
    const batch = await svc.post('/v1/batch/scrape', { urls: PRIVATE, webhook_events: ['job.page'] }, key);
    expect(batch.status).toBe(400);
    for (const v of ['v1', 'v2']) {
      const fcCrawl = await svc.post(`/firecrawl/${v}/crawl`, { url: PRIVATE[0], webhook: 5 }, key);
      expect(fcCrawl.status, v).toBe(400);
      const fcBatch = await svc.post(`/firecrawl/${v}/batch/scrape`, { urls: PRIVATE, webhook: 5 }, key);
      expect(fcBatch.status, v).toBe(400);
    }
    expect(await svc.credits(accountId)).toBe(10);
  });

  it('a batch’s page options come before its targets on /firecrawl too', async () => {
    const { key } = await svc.newKey(10);
    for (const v of ['v1', 'v2']) {
      const r = await svc.post(`/firecrawl/${v}/batch/scrape`, { urls: PRIVATE, formats: ['no-such-format'] }, key);
      expect(r.status, v).toBe(400);
    }
  });

  it('the targets come before the webhook’s URL', async () => {
    const { key, accountId } = await svc.newKey(10);
    const batch = await svc.post('/v1/batch/scrape', { urls: PRIVATE, webhook: HOOK }, key);
    expect(batch.status).toBe(403);
    expect(await batch.json()).toMatchObject({ error: 'forbidden_target', detail: expect.stringMatching(/^urls:/) });
    const crawl = await svc.post('/v1/crawl', { url: PRIVATE[0], async: true, webhook: HOOK }, key);
    expect(crawl.status).toBe(403);
    expect(((await crawl.json()) as { detail: string }).detail).not.toMatch(/^webhook:/);
    for (const v of ['v1', 'v2']) {
      const fcBatch = await svc.post(`/firecrawl/${v}/batch/scrape`, { urls: PRIVATE, webhook: HOOK }, key);
      expect(fcBatch.status, v).toBe(403);
      expect(((await fcBatch.json()) as { error: string }).error, v).toMatch(/^urls:/);
    }
    expect(await svc.credits(accountId)).toBe(10);
    expect(await jobs.listJobs(svc.store.db, accountId, 10)).toEqual([]);
  });

  it('a reachable target with a private webhook is refused naming the webhook, nothing charged', async () => {
    const { key, accountId } = await svc.newKey(10);
    const crawl = await svc.post('/v1/crawl', { url: 'http://public.test/', async: true, webhook: HOOK }, key);
    expect(crawl.status).toBe(403);
    expect(await crawl.json()).toMatchObject({ error: 'forbidden_target', detail: expect.stringMatching(/^webhook:/) });
    const batch = await svc.post('/v1/batch/scrape', { urls: ['http://public.test/'], webhook: HOOK }, key);
    expect(batch.status).toBe(403);
    for (const v of ['v1', 'v2']) {
      const fc = await svc.post(`/firecrawl/${v}/crawl`, { url: 'http://public.test/', webhook: HOOK }, key);
      expect(fc.status, v).toBe(403);
      expect(((await fc.json()) as { error: string }).error, v).toMatch(/^webhook:/);
    }
    expect(await svc.credits(accountId)).toBe(10);
    expect(await jobs.listJobs(svc.store.db, accountId, 10)).toEqual([]);
  });

  it('an account with no credit is 402 before its targets are looked at', async () => {
    const { key, accountId } = await svc.newKey(0);
    const batch = await svc.post('/v1/batch/scrape', { urls: PRIVATE, webhook: HOOK }, key);
    expect(batch.status).toBe(402);
    expect(await batch.json()).toEqual({ error: 'insufficient_credits' });
    const crawl = await svc.post('/v1/crawl', { url: PRIVATE[0], async: true }, key);
    expect(crawl.status).toBe(402);
    for (const v of ['v1', 'v2']) {
      const fc = await svc.post(`/firecrawl/${v}/batch/scrape`, { urls: PRIVATE }, key);
      expect(fc.status, v).toBe(402);
    }
    expect(await jobs.listJobs(svc.store.db, accountId, 10)).toEqual([]);
  });
});
