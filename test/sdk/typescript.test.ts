/**
 * The TypeScript SDK (sdk/typescript/src) against the real service on SQLite with local fakes for
 * every outside party (pages, search provider, Meta, a marketplace host, a webhook receiver):
 * every method; typed errors; retries on 429 (honouring retry_after), on 502/504 for idempotent
 * calls only; AbortSignal and timeouts; job waiting and page iteration; webhook verification,
 * checked against the official `standardwebhooks` library and on a real monitor delivery.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  Trawl,
  TrawlConnectionError,
  TrawlError,
  TrawlTimeoutError,
  WebhookVerificationError,
  verifyWebhook,
  type Job,
  type RetryInfo,
} from '../../sdk/typescript/src/index.js';
import { parseRetryAfter } from '../../sdk/typescript/src/retry.js';
import { renderRequestTypes } from '../../sdk/typescript/scripts/openapi-to-ts.js';
import { webhookHeaders } from '../../src/webhooks/signing.js';
import { accounts } from '../../src/store/index.js';
import { startFakeMeta, type FakeMeta } from '../helpers/fake-meta.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { startScriptedServer, type ScriptedServer } from './scripted-server.js';

const ROOT = join(import.meta.dirname, '../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}
/** The rejection of a promise (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to fail');
}

const productPage = (price: number) =>
  `<!doctype html><html><head><title>Widget</title></head><body><main><h1>Widget</h1><p class="price">$${price}</p><p>A paragraph long enough to be the main content of this small test page.</p></main></body></html>`;

describe('TypeScript SDK against the service', () => {
  let svc: TestService;
  let site: FixtureServer;
  let providers: FixtureServer;
  let meta: FakeMeta;
  let hook: WebhookReceiver;
  let price = 10;

  beforeAll(async () => {
    site = await startFixtureServer({
      '/article': articlePage(
        'Tides',
        '<p>Tides are caused mainly by the gravitational pull of the Moon on the oceans of the Earth.</p><p>Price: $19.99</p>',
      ),
      '/product': productPage(10),
      '/p': (_q, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(productPage(price)),
      '/slow': async (_q, res) => {
        await sleep(150);
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(articlePage('Slow', '<p>A page that takes its time, with words enough to be the content.</p>'));
      },
      '/stall': async (_q, res) => {
        await sleep(4000);
        if (!res.destroyed)
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end(articlePage('Late', '<p>Too late for anyone to read this.</p>'));
      },
      '/c/': `<html><head><title>Index</title></head><body><main><h1>Index</h1>${Array.from({ length: 9 }, (_, i) => `<a href="/c/${i + 1}">Page ${i + 1}</a>`).join(' ')}</main></body></html>`,
    });
    for (let i = 1; i <= 9; i++)
      site.route(
        `/c/${i}`,
        articlePage(`Crawled ${i}`, `<p>Crawled page number ${i}, with words enough to be the main content.</p>`),
      );
    site.route('/dp/B0TESTDE01', readFileSync(join(ROOT, 'test/fixtures/marketplace/amazon-de-deal.html'), 'utf8'));
    providers = await startFixtureServer({
      '/searx/search': (req, res) => {
        const q = new URL(req.url!, 'http://x').searchParams;
        const results = [
          { url: `${site.url}/product`, title: 'A widget', content: 'A product page' },
          { url: `${site.url}/article`, title: 'What causes tides', content: 'An explainer on tides' },
        ];
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: q.get('q'), results }));
      },
    });
    const own = (p: string) => JSON.parse(readFileSync(join(ROOT, 'test/fixtures/meta-ads', p), 'utf8'));
    meta = await startFakeMeta({
      pages: { abyssgear: { id: '4242', name: 'Abyss Gear' } },
      firstBatch: own('search_page.json').data,
      nextPages: {},
    });
    hook = await startWebhookReceiver();
    svc = await startTestService('sqlite', {
      SEARXNG_URL: `${providers.url}/searx`,
      META_AD_LIBRARY_BASE_URL: meta.url,
      TRAWL_RESOLVE: `www.amazon.de=127.0.0.1:${site.port}`,
      TRAWL_MIN_INTERVAL_SECONDS: '1',
      TRAWL_WEBHOOK_RETRY_BASE_MS: '10',
      TRAWL_WEBHOOK_MAX_ATTEMPTS: '2',
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    for (const s of [site, providers, meta, hook]) await s?.close();
  });

  /** A client on a fresh account; `calls` records every URL it fetched. */
  async function client(credits = 50, rateLimitPerMinute?: number) {
    const k = await svc.newKey(credits, rateLimitPerMinute);
    const calls: string[] = [];
    const retries: RetryInfo[] = [];
    const trawl = new Trawl({
      apiKey: k.key,
      baseUrl: svc.url,
      fetch: (input, init) => (
        calls.push(`${init?.method ?? 'GET'} ${String(input).slice(svc.url.length)}`),
        fetch(input, init)
      ),
      onRetry: (r) => retries.push(r),
    });
    return { trawl, calls, retries, ...k };
  }

  it("has request types generated from this server's /v1/openapi.json (regenerate with npm run generate)", async () => {
    const document = await (await fetch(`${svc.url}/v1/openapi.json`)).json();
    const committed = readFileSync(join(ROOT, 'sdk/typescript/src/generated/requests.ts'), 'utf8');
    expect(renderRequestTypes(document)).toBe(committed);
    expect(committed).toContain('export interface ScrapeBody {');
    expect(committed).toContain("render?: 'auto' | 'http' | 'browser';");
  });

  it("account, scrape, crawl, map, search and extract answer the API's bodies and charge as the API does", async () => {
    const { trawl, accountId } = await client(20);
    expect(await trawl.account()).toEqual({
      account_id: accountId,
      email: expect.stringContaining('@test.local'),
      credits: 20,
    });

    const page = await trawl.scrape({
      url: `${site.url}/article`,
      formats: ['markdown', 'json', 'links'],
      schema: { title: 'string', price: 'number' },
    });
    expect(page.status).toBe('ok');
    expect(page.markdown).toContain('gravitational pull of the Moon');
    expect(page.json).toEqual({ title: 'Tides', price: 19.99 });
    expect(page.metadata).toMatchObject({ title: 'Tides', status_code: 200 });

    const crawl = await trawl.crawl({ url: `${site.url}/c/`, max_depth: 1, limit: 5 });
    expect(crawl.pages.map((p) => p.url)).toEqual([`${site.url}/c/`, ...[1, 2, 3, 4].map((i) => `${site.url}/c/${i}`)]);
    expect(crawl.truncated).toBe(true);

    const map = await trawl.map({ url: `${site.url}/c/`, search: 'page 7', limit: 3 });
    expect(map.total).toBeGreaterThanOrEqual(9);
    expect(map.links).toHaveLength(3);
    expect(map.links[0].url).toBe(`${site.url}/c/7`);

    const found = await trawl.search({ query: 'what causes tides moon', limit: 2 });
    expect(found.results.map((r) => r.citation)).toEqual(['[1]', '[2]']);
    expect(found.results[0].url).toBe(`${site.url}/article`);
    expect(found.results[0].highlights[0].text).toContain('gravitational pull');

    const extracted = await trawl.extract({
      urls: [`${site.url}/article`, `${site.url}/missing`],
      schema: { price: 'number' },
    });
    expect(extracted.data).toEqual({ price: 19.99 });
    expect(extracted.results.map((r) => r.status)).toEqual(['ok', 'error']);

    expect((await trawl.account()).credits).toBe(15);
  });

  it('marketplace and metaAds', async () => {
    const { trawl } = await client(5);
    const m = await trawl.marketplace({ marketplace: 'amazon_de', url: 'http://www.amazon.de/dp/B0TESTDE01' });
    expect(m.product).toMatchObject({
      id: 'B0TESTDE01',
      price: 1049.99,
      currency: 'EUR',
      availability: 'limited',
      in_stock: true,
    });
    expect(m.sources.price).toMatch(/^amazon:/);
    const ads = await trawl.metaAds({ advertiser: 'abyssgear', country: 'US', active_status: 'all' });
    expect(ads.source).toBe('web');
    expect(ads.page).toMatchObject({ id: '4242' });
    expect(ads.ads.map((a) => [a.id, a.status])).toEqual([
      ['2000000000000001', 'active'],
      ['2000000000000002', 'inactive'],
    ]);
  });

  it('throws one TrawlError carrying status, the contract code, detail and the request id; 4xx are never retried', async () => {
    const { trawl, calls, retries } = await client(5);
    const bad = await rejection(trawl.scrape({ url: 'ftp://example.com/file' }));
    expect(bad).toBeInstanceOf(TrawlError);
    expect(bad).toMatchObject({ status: 400, code: 'invalid_request', detail: expect.stringMatching(/^url: /) });
    expect(bad.requestId).toMatch(/^req_/);
    expect(bad.message).toBe(`invalid_request: ${bad.detail}`);
    // One shape in both SDKs: the code also under the body's (and Python's) name, every fault listed.
    expect(bad.error).toBe('invalid_request');
    const many = await rejection(trawl.scrape({ url: 'ftp://example.com/file', timeout_ms: 5 } as never));
    expect(many.errors?.map((f: { field: string }) => f.field)).toEqual(['url', 'timeout_ms']);
    expect(many.detail).toBe(many.errors?.[0].detail);
    const schema = await rejection(trawl.extract({ urls: [`${site.url}/article`] } as never));
    expect(schema).toMatchObject({ status: 422, code: 'invalid_schema' });
    const market = await rejection(
      trawl.marketplace({ marketplace: 'amazon_xx', url: 'http://www.amazon.de/dp/B0TESTDE01' }),
    );
    expect(market.detail).toMatch(/^marketplace: "amazon_xx" is not a marketplace id; use one of amazon_us/);
    const missing = await rejection(trawl.getJob('job_00000000000000000000'));
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    expect(calls).toHaveLength(5);
    expect(retries).toEqual([]);

    const stranger = new Trawl({ apiKey: 'trawl_not_a_key_of_this_service_00000000', baseUrl: svc.url });
    expect(await rejection(stranger.account())).toMatchObject({
      status: 401,
      code: 'unauthorized',
      detail: expect.stringMatching(/^authorization: /),
    });
    const { trawl: broke } = await client(0);
    expect(await rejection(broke.scrape({ url: `${site.url}/article` }))).toMatchObject({
      status: 402,
      code: 'insufficient_credits',
    });
    expect(() => new Trawl({ apiKey: '' })).toThrow(/apiKey is required/);
  });

  it('waits for a batch job with progress observed moving, and iterates its pages across cursors while it runs', async () => {
    const { trawl, calls } = await client(5);
    const urls = Array.from({ length: 24 }, (_, i) => `${site.url}/slow?i=${i}`);
    const started = await trawl.startBatchScrape({ urls, formats: ['markdown'] });
    expect(started).toMatchObject({ kind: 'batch', state: 'queued', progress: { done: 0, failed: 0, queued: 24 } });
    const seen: Job[] = [];
    const pages: any[] = [];
    const [done] = await Promise.all([
      trawl.waitForJob(started.job_id, { pollIntervalMs: 40, onProgress: (j) => seen.push(j) }),
      (async () => {
        for await (const p of trawl.jobPages(started.job_id, { limit: 5, pollIntervalMs: 40 })) pages.push(p);
      })(),
    ]);
    expect(done).toMatchObject({ state: 'completed', progress: { done: 24, failed: 0, queued: 0 } });
    const dones = seen.map((j) => j.progress.done);
    expect(dones).toEqual([...dones].sort((a, b) => a - b));
    expect(new Set(dones).size).toBeGreaterThanOrEqual(3);
    expect(seen.at(-1)).toEqual(done);
    expect(pages.map((p) => p.url).sort()).toEqual([...urls].sort());
    expect(pages.every((p) => p.markdown?.includes('takes its time'))).toBe(true);
    // Pages came through several cursors, not one read at the end.
    const cursors = new Set(
      calls
        .filter((c) => c.includes(`/v1/jobs/${started.job_id}?`) && c.includes('limit=5'))
        .map((c) => new URL(c, 'http://x').searchParams.get('cursor')),
    );
    expect(cursors.size).toBeGreaterThanOrEqual(5);
    // Without follow: what is there, once.
    const again: any[] = [];
    for await (const p of trawl.jobPages(started.job_id, { limit: 100, follow: false })) again.push(p);
    expect(again.map((p) => p.url)).toEqual(pages.map((p) => p.url));
  });

  it('startCrawl, getJob, listJobs and cancelJob', async () => {
    const { trawl } = await client(5);
    const crawl = await trawl.startCrawl({ url: `${site.url}/c/`, max_depth: 1, limit: 10 });
    expect(crawl.kind).toBe('crawl');
    const ended = await trawl.waitForJob(crawl.job_id, { pollIntervalMs: 50 });
    expect(ended.progress).toEqual({ done: 10, failed: 0, queued: 0 });
    const first = await trawl.getJob(crawl.job_id, { limit: 3 });
    expect(first.pages).toHaveLength(3);
    expect(first.next_cursor).toEqual(expect.any(String));
    const rest: any[] = [];
    for await (const p of trawl.jobPages(crawl.job_id, { limit: 3, cursor: first.next_cursor! })) rest.push(p);
    expect([...first.pages, ...rest].map((p) => p.url).sort()).toEqual(
      [`${site.url}/c/`, ...Array.from({ length: 9 }, (_, i) => `${site.url}/c/${i + 1}`)].sort(),
    );

    const batch = await trawl.startBatchScrape({
      urls: Array.from({ length: 60 }, (_, i) => `${site.url}/slow?n=${i}`),
    });
    await until('a page done', async () => (await trawl.getJob(batch.job_id, { limit: 1 })).job.progress.done > 0);
    const cancelled = await trawl.cancelJob(batch.job_id);
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.progress.done).toBeLessThan(60);
    expect((await trawl.waitForJob(batch.job_id)).state).toBe('cancelled');
    const listed = await trawl.listJobs({ limit: 1 });
    expect(listed.jobs.map((j) => j.job_id)).toEqual([batch.job_id]);
    expect((await trawl.listJobs({ cursor: listed.next_cursor! })).jobs.map((j) => j.job_id)).toEqual([crawl.job_id]);
  });

  it('monitors: create, list, iterate, get, update, run, runs, history, deliveries, redeliver, replay, delete; the real delivery verifies', async () => {
    const { trawl, accountId } = await client(30);
    const secret = (await accounts.findAccountById(svc.store.db, accountId))!.signing_secret;
    price = 10;
    const created = await trawl.createMonitor({
      url: `${site.url}/p`,
      interval: '1h',
      watch: ['price'],
      webhook: hook.url,
      schema: { price: 'number' },
    });
    expect(created).toMatchObject({
      monitor_id: expect.stringMatching(/^mon_/),
      state: 'active',
      watch: ['price'],
      interval_seconds: 3600,
    });
    const id = created.monitor_id;
    const paused = await trawl.updateMonitor(id, { state: 'paused' });
    expect(paused).toMatchObject({ state: 'paused', next_run_at: null });
    const other = await trawl.createMonitor({
      url: `${site.url}/p`,
      interval: '2h',
      watch: ['title'],
      webhook: hook.url,
    });
    expect((await trawl.listMonitors()).monitors.map((m) => m.monitor_id)).toEqual([other.monitor_id, id]);
    const all: string[] = [];
    for await (const m of trawl.iterateMonitors({ limit: 1 })) all.push(m.monitor_id);
    expect(all).toEqual([other.monitor_id, id]);

    const baseline = await trawl.runMonitor(id);
    expect(baseline).toMatchObject({ status: 'succeeded', values: { price: 10 }, event_id: null, trigger: 'manual' });
    price = 11;
    const changed = await trawl.runMonitor(id);
    expect(changed).toMatchObject({
      status: 'succeeded',
      changes: { price: { from: 10, to: 11 } },
      event_id: expect.stringMatching(/^evt_/),
    });

    // The delivery the service sent, checked by the SDK and by the official library.
    const [got] = await hook.waitFor(1);
    const event = await verifyWebhook(got.body, got.headers, secret);
    expect(event).toEqual(new Webhook(secret).verify(got.body, got.headers as Record<string, string>));
    expect(event).toMatchObject({
      id: changed.event_id,
      event: 'change.detected',
      monitor_id: id,
      sequence: 1,
      changes: { price: { from: 10, to: 11 } },
    });
    await expect(verifyWebhook(got.body.replace('11', '12'), got.headers, secret)).rejects.toMatchObject({
      reason: 'invalid_signature',
    });

    const [delivery] = await until('the delivery succeeded', async () => {
      const d = await trawl.listDeliveries(id);
      return d[0]?.state === 'succeeded' && d;
    });
    expect(delivery).toMatchObject({ event_id: changed.event_id, attempts: 1, event: { id: changed.event_id } });
    const again = await trawl.redeliver(id, delivery.delivery_id);
    expect(again.attempt_log.map((a) => [a.attempt, a.manual, a.outcome])).toEqual([
      [1, false, 'succeeded'],
      [2, true, 'succeeded'],
    ]);
    const [, second] = await hook.waitFor(2);
    expect(second.headers['webhook-id']).toBe(changed.event_id);
    expect((await verifyWebhook(second.body, second.headers, secret)).id).toBe(changed.event_id);

    const history = await trawl.monitorHistory(id, { field: 'price' });
    expect(history.points.map((p) => p.value)).toEqual([10, 11]);
    expect(await rejection(trawl.monitorHistory(id, { field: 'nope' }))).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/^field: /),
    });
    const runs = await trawl.listMonitorRuns(id, { limit: 5 });
    expect(runs.runs.map((r) => r.run_id)).toEqual([changed.run_id, baseline.run_id]);
    expect(runs.unchanged_runs_collapsed).toEqual({ total: 0, days: [] });
    const detail = await trawl.getMonitor(id);
    expect(detail).toMatchObject({ last_values: { price: 11 }, consecutive_failures: 0, state: 'paused' });
    expect(detail.last_runs).toHaveLength(2);

    // A delivery that fails every attempt, then is replayed.
    const since = new Date(Date.now() - 1000).toISOString();
    hook.failNext(2, 500);
    price = 12;
    const third = await trawl.runMonitor(id);
    await until(
      'the delivery failed',
      async () => (await trawl.listDeliveries(id, { limit: 1 }))[0]?.state === 'failed',
    );
    expect(await trawl.replayWebhooks({ since, monitor_id: id })).toEqual({ replayed: 1 });
    const replayed = await until('the replayed delivery', async () =>
      hook.received.find((r, i) => i >= 4 && JSON.parse(r.body).id === third.event_id && r.answered === 204),
    );
    expect((await verifyWebhook(replayed.body, replayed.headers, secret)).sequence).toBe(2);

    expect(await trawl.deleteMonitor(id)).toEqual({ status: 'ok', monitor_id: id, deleted: true });
    expect(await rejection(trawl.getMonitor(id))).toMatchObject({ status: 404, code: 'not_found' });
    await trawl.deleteMonitor(other.monitor_id);
  });

  it('AbortSignal cancels a call in flight (the server refunds its credit); timeoutMs gives up on a slow answer', async () => {
    const { trawl, accountId } = await client(5);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    // /stall answers after 4 s: without the abort the call would succeed, not reject as an AbortError.
    const aborted = await rejection(trawl.scrape({ url: `${site.url}/stall` }, { signal: controller.signal }));
    expect(aborted.name).toBe('AbortError');
    await until('the credit refunded', async () => (await svc.credits(accountId)) === 5);

    // Without the client's timeout the call would succeed after 4 s; the server's would be a 504, not client_timeout.
    const late = await rejection(trawl.scrape({ url: `${site.url}/stall` }, { timeoutMs: 300 }));
    expect(late).toBeInstanceOf(TrawlTimeoutError);
    expect(late).toMatchObject({ code: 'client_timeout', status: 0 });
    const early = new AbortController();
    early.abort(new Error('not now'));
    expect((await rejection(trawl.account({ signal: early.signal }))).message).toBe('not now');
  });

  it('retries a real 429 after the retry_after the service names, and succeeds', async () => {
    const { trawl, retries } = await client(5, 60);
    // Empty the key's bucket (60 a minute, refilled one a second), each call allowed no retry.
    let limited: any;
    for (let i = 0; i < 80 && !limited; i++)
      limited = await trawl.account({ maxRetries: 0 }).then(
        () => undefined,
        (e) => e,
      );
    expect(limited).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 1 });
    const t0 = Date.now();
    expect((await trawl.account()).credits).toBe(5);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries[0]).toMatchObject({
      method: 'GET',
      path: '/v1/account',
      attempt: 0,
      delayMs: 1000,
      error: { status: 429 },
    });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
  });
});

describe('TypeScript SDK retries (scripted answers)', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(async () => server?.close());

  const trawl = (extra: Partial<ConstructorParameters<typeof Trawl>[0]> = {}) =>
    new Trawl({ apiKey: 'trawl_test', baseUrl: server.url, retryBaseDelayMs: 100, ...extra });
  const gaps = () => server.hits.slice(1).map((h, i) => h.at - server.hits[i].at);
  const ok = { status: 200, body: { account_id: 'acc_1', email: 'a@b.c', credits: 3 } };

  it('honours retry_after of a 429 body (and Retry-After alone) before trying again', async () => {
    server.script(
      [{ status: 429, body: { error: 'rate_limited', retry_after: 1 }, headers: { 'retry-after': '1' } }],
      ok,
    );
    const t0 = Date.now();
    expect(await trawl().account()).toEqual(ok.body);
    expect(server.hits).toHaveLength(2);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(gaps()[0]).toBeGreaterThanOrEqual(990);
    expect(server.hits[0].headers.authorization).toBe('Bearer trawl_test');

    // A proxy's 429: no JSON, only the header.
    server.script([{ status: 429, body: '<html>slow down</html>', headers: { 'retry-after': '1' } }], ok);
    expect(await trawl().account()).toEqual(ok.body);
    expect(gaps()[0]).toBeGreaterThanOrEqual(990);
  });

  it('a negative retry_after is no wait: the next attempt comes after the default second', async () => {
    server.script([{ status: 429, body: { error: 'rate_limited', retry_after: -30 } }], ok);
    expect(await trawl().account()).toEqual(ok.body);
    expect(server.hits).toHaveLength(2);
    expect(gaps()[0]).toBeGreaterThanOrEqual(990);
  });

  it('retries a 429 on calls that charge (429 means not processed), but not past maxRetryDelayMs', async () => {
    server.script([{ status: 429, body: { error: 'rate_limited', retry_after: 1 } }], {
      status: 200,
      body: { status: 'ok', job: { job_id: 'job_1' } },
    });
    expect((await trawl().startBatchScrape({ urls: ['https://example.com/'] })).job_id).toBe('job_1');
    expect(server.hits.map((h) => h.method)).toEqual(['POST', 'POST']);
    expect(JSON.parse(server.hits[1].body)).toEqual({ urls: ['https://example.com/'] });

    server.script(
      [{ status: 429, body: { error: 'rate_limited', retry_after: 120 }, headers: { 'retry-after': '120' } }],
      ok,
    );
    const e = await rejection(trawl({ maxRetryDelayMs: 10_000 }).account());
    expect(e).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 120 });
    expect(server.hits).toHaveLength(1);
  });

  it('backs off exponentially with jitter on 502/504 for a GET, up to maxRetries', async () => {
    server.script(
      [
        { status: 502, body: '<html>Bad Gateway</html>' },
        { status: 504, body: { error: 'timeout', detail: 'the proxy gave up' } },
      ],
      ok,
    );
    const seen: RetryInfo[] = [];
    expect(await trawl({ onRetry: (r) => seen.push(r) }).account()).toEqual(ok.body);
    expect(server.hits).toHaveLength(3);
    const [g1, g2] = gaps();
    expect(g1).toBeGreaterThanOrEqual(45); // step 100 ms: 50–100
    expect(g2).toBeGreaterThanOrEqual(95); // step 200 ms: 100–200
    expect(seen.map((r) => [r.attempt, r.error.status, r.error.code])).toEqual([
      [0, 502, 'unexpected_response'],
      [1, 504, 'timeout'],
    ]);
    expect(seen[0].delayMs).toBeGreaterThanOrEqual(50);
    expect(seen[0].delayMs).toBeLessThanOrEqual(100);
    expect(seen[1].delayMs).toBeGreaterThanOrEqual(100);
    expect(seen[1].delayMs).toBeLessThanOrEqual(200);

    server.script([], { status: 502, body: '<html><body>Bad Gateway</body></html>' });
    const e = await rejection(trawl({ maxRetries: 2 }).getJob('job_1'));
    expect(e).toMatchObject({
      status: 502,
      code: 'unexpected_response',
      detail: 'HTTP 502: <html><body>Bad Gateway</body></html>',
    });
    expect(server.hits).toHaveLength(3);
    // Also a lost connection on a read, and a 503 on the replay (safe to repeat).
    server.script([{ reset: true }], ok);
    expect(await trawl().account()).toEqual(ok.body);
    expect(server.hits).toHaveLength(2);
    server.script([{ status: 503, body: '' }], { status: 200, body: { status: 'ok', replayed: 4 } });
    expect(await trawl().replayWebhooks({ since: '2026-11-25T00:00:00Z' })).toEqual({ replayed: 4 });
    expect(server.hits).toHaveLength(2);
  });

  it('never retries a POST that charges or starts work on 502/504 or a lost connection', async () => {
    const cases: [string, (t: Trawl) => Promise<unknown>][] = [
      ['scrape', (t) => t.scrape({ url: 'https://example.com/' })],
      ['startCrawl', (t) => t.startCrawl({ url: 'https://example.com/' })],
      ['startBatchScrape', (t) => t.startBatchScrape({ urls: ['https://example.com/'] })],
      ['runMonitor', (t) => t.runMonitor('mon_1')],
      [
        'createMonitor',
        (t) =>
          t.createMonitor({
            url: 'https://example.com/',
            interval: '1h',
            watch: ['title'],
            webhook: 'https://example.com/hook',
          }),
      ],
    ];
    for (const [name, call] of cases) {
      for (const answer of [
        { status: 502, body: { error: 'fetch_failed', detail: 'target answered 503' } },
        { status: 504, body: { error: 'timeout', detail: 'budget' } },
        { reset: true },
      ]) {
        server.script([answer], ok);
        const e = await rejection(call(trawl()));
        expect({ name, hits: server.hits.length }).toEqual({ name, hits: 1 });
        expect(e).toBeInstanceOf(answer.reset ? TrawlConnectionError : TrawlError);
        if (!answer.reset) expect(e.status).toBe(answer.status);
      }
    }
  });

  it('stops waiting to retry as soon as the signal aborts, and times out a stalled answer without retrying it', async () => {
    server.script([{ status: 429, body: { error: 'rate_limited', retry_after: 5 } }], ok);
    const controller = new AbortController();
    // A fake clock for timers only (I/O is real): the 5 s wait never ends by itself, so only the
    // abort can end the call, within a few turns of the loop.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let e: any;
    try {
      const pending = rejection(trawl().account({ signal: controller.signal })).then((x) => (e = x));
      const turns = async (n: number, until: () => boolean) => {
        for (let i = 0; i < n && !until(); i++) await new Promise((r) => setImmediate(r));
      };
      await turns(10_000, () => server.hits.length === 1);
      await turns(50, () => false); // the 429 read, the wait begun
      expect(e).toBeUndefined();
      controller.abort();
      await turns(1_000, () => e !== undefined);
      expect(e?.name).toBe('AbortError');
      await pending;
    } finally {
      vi.useRealTimers();
    }
    expect(server.hits).toHaveLength(1);

    server.script([{ stall: true }], ok);
    const t1 = Date.now();
    const late = await rejection(trawl({ timeoutMs: 200 }).account());
    expect(late).toBeInstanceOf(TrawlTimeoutError);
    expect(Date.now() - t1).toBeGreaterThanOrEqual(195);
    expect(server.hits).toHaveLength(1);
  });

  it('follows a redirect to another origin without the key', async () => {
    const elsewhere = await startScriptedServer();
    try {
      elsewhere.script([], ok);
      server.script([{ status: 302, body: '', headers: { location: `${elsewhere.url}/v1/account` } }], ok);
      expect(await trawl().account()).toEqual(ok.body);
      expect(server.hits[0].headers.authorization).toBe('Bearer trawl_test');
      expect(elsewhere.hits).toHaveLength(1);
      expect(elsewhere.hits[0].headers.authorization).toBeUndefined();
    } finally {
      await elsewhere.close();
    }
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Wed, 25 Nov 2026 10:00:03 GMT', now)).toBe(3);
    expect(parseRetryAfter('Wed, 25 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('verifyWebhook', () => {
  const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
  const oldSecret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
  const body = JSON.stringify({
    id: 'evt_1',
    event: 'change.detected',
    monitor_id: 'mon_1',
    url: 'https://shop.example/p',
    sequence: 4,
    changes: { title: { from: 'Café', to: 'Café €' } },
    at: '2026-11-21T23:00:00.000Z',
  });
  /** Signed by the server's own signing code. */
  const sign = (at = Date.now(), secrets: Parameters<typeof webhookHeaders>[2] = { current: secret }) =>
    webhookHeaders('evt_1', body, secrets, at);
  const official = (raw: string, headers: Record<string, string>, s: string) => {
    try {
      return new Webhook(s).verify(raw, headers);
    } catch {
      return 'refused';
    }
  };
  const ours = async (raw: string | Buffer, headers: Record<string, string> | Headers, s: string, o = {}) => {
    try {
      return await verifyWebhook(raw, headers, s, o);
    } catch (e) {
      expect(e).toBeInstanceOf(WebhookVerificationError);
      return (e as WebhookVerificationError).reason;
    }
  };

  it('accepts good deliveries (string or bytes, plain or fetch Headers) and refuses tampered, stale and mis-keyed ones', async () => {
    const h = sign();
    expect(await ours(body, h, secret)).toEqual(JSON.parse(body));
    expect(await ours(Buffer.from(body), new Headers(h), secret)).toEqual(JSON.parse(body));
    expect(await ours(body.replace('Café €', 'Cafe €'), h, secret)).toBe('invalid_signature');
    expect(await ours(body, { ...h, 'webhook-id': 'evt_2' }, secret)).toBe('invalid_signature');
    expect(await ours(body, h, oldSecret)).toBe('invalid_signature');
    expect(await ours(body, sign(Date.now() - 301_000), secret)).toBe('stale_timestamp');
    expect(await ours(body, sign(Date.now() + 301_000), secret)).toBe('stale_timestamp');
    expect(await ours(body, sign(Date.now() - 250_000), secret)).toEqual(JSON.parse(body));
    expect(await ours(body, sign(Date.now() - 250_000), secret, { toleranceSeconds: 60 })).toBe('stale_timestamp');
    expect(await ours(body, { ...h, 'webhook-timestamp': '17e8' }, secret)).toBe('invalid_timestamp');
    const { 'webhook-signature': _s, ...unsigned } = h;
    expect(await ours(body, unsigned, secret)).toBe('missing_headers');
    expect(await ours(body, h, 'whsec_***')).toBe('invalid_secret');
  });

  it('accepts either secret while a rotation overlaps (two v1 entries)', async () => {
    const h = sign(Date.now(), {
      current: secret,
      previous: oldSecret,
      previousExpiresAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(h['webhook-signature'].split(' ')).toHaveLength(2);
    expect(await ours(body, h, secret)).toMatchObject({ id: 'evt_1' });
    expect(await ours(body, h, oldSecret)).toMatchObject({ id: 'evt_1' });
    expect(await ours(body, h, `whsec_${Buffer.alloc(32, 5).toString('base64')}`)).toBe('invalid_signature');
  });

  it('takes the seed X-Service-Signature only when asked and only without Standard Webhooks headers', async () => {
    const h = sign();
    const seedOnly = { 'x-service-signature': h['x-service-signature'] };
    expect(await ours(body, seedOnly, secret)).toBe('missing_headers');
    expect(await ours(body, seedOnly, secret, { allowSeedSignature: true })).toMatchObject({ id: 'evt_1' });
    expect(await ours(`${body} `, seedOnly, secret, { allowSeedSignature: true })).toBe('invalid_signature');
    expect(await ours(body, { 'x-service-signature': 'sha256=00' }, secret, { allowSeedSignature: true })).toBe(
      'invalid_signature',
    );
    // A replayed old delivery keeps its stale timestamp: the seed signature cannot rescue it.
    expect(await ours(body, sign(Date.now() - 3600_000), secret, { allowSeedSignature: true })).toBe('stale_timestamp');
  });

  it('agrees with the standardwebhooks library on every delivery', async () => {
    const rotated = sign(Date.now(), {
      current: secret,
      previous: oldSecret,
      previousExpiresAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    const cases: [string, Record<string, string>, string][] = [
      [body, sign(), secret],
      [body, sign(), oldSecret],
      [body.replace('"sequence":4', '"sequence":5'), sign(), secret],
      [body, sign(Date.now() - 400_000), secret],
      [body, sign(Date.now() + 400_000), secret],
      [body, sign(Date.now() - 200_000), secret],
      [body, rotated, secret],
      [body, rotated, oldSecret],
      [body, { ...rotated, 'webhook-signature': rotated['webhook-signature'].split(' ')[1] }, oldSecret],
      [body, { ...rotated, 'webhook-signature': `v2,${rotated['webhook-signature'].slice(3)}` }, secret],
      [body, { ...sign(), 'webhook-signature': 'v1,garbage v1,' }, secret],
    ];
    for (const [raw, headers, s] of cases) {
      const theirs = official(raw, headers, s);
      const mine = await ours(raw, headers, s);
      expect({ headers, accepted: typeof mine === 'object' }).toEqual({
        headers,
        accepted: typeof theirs === 'object',
      });
      if (typeof mine === 'object') expect(mine).toEqual(theirs);
    }
  });

  it('agrees with the standardwebhooks library at the edges: the last second of the tolerance, re-encoded signatures', async () => {
    const T = 1_795_000_000;
    const h = sign(T * 1000);
    const unpadded = { ...h, 'webhook-signature': h['webhook-signature'].replace(/=+$/, '') };
    const cases: [number, Record<string, string>][] = [
      [(T + 300) * 1000 + 999, h], // 300.999 s old: the library counts whole seconds, so still fresh
      [(T + 301) * 1000, h],
      [(T - 300) * 1000, h],
      [(T - 300) * 1000 - 1, h],
      [T * 1000, unpadded], // the same bytes, another spelling: the library compares the text
    ];
    const clock = vi.spyOn(Date, 'now');
    try {
      for (const [now, headers] of cases) {
        clock.mockReturnValue(now);
        const theirs = official(body, headers, secret);
        const mine = await ours(body, headers, secret, { now });
        expect({ now, headers, accepted: typeof mine === 'object' }).toEqual({
          now,
          headers,
          accepted: typeof theirs === 'object',
        });
      }
    } finally {
      clock.mockRestore();
    }
    await expect(verifyWebhook(body, h, secret, { toleranceSeconds: Number(undefined) })).rejects.toThrow(RangeError);
  });
});
