/**
 * /healthz and /readyz (issue 29) against real PostgreSQL and Redis: ready on SQLite; 503 naming
 * the store while PostgreSQL is cut off (behind a TCP proxy), 200 again once it is back; the same
 * for Redis; in scale-out, 503 until a `trawl worker` heartbeat is seen, 200 while one runs, 503 once
 * it stops, with /metrics counting live workers and BullMQ's queue depth, and the worker's own
 * /metrics counting the job pages it fetched. No failure shows an address, a port or a connection
 * string.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startWorker } from '../../src/runtime.js';
import { articlePage, startFixtureServer } from '../helpers/fixture-server.js';
import { createTestDatabase, startTestService, type TestService, PG_AVAILABLE } from '../helpers/service.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { parsePrometheus, valueOf } from './prometheus-text.js';

const REDIS_URL = process.env.TRAWL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const quiet = { warn: () => undefined, error: () => undefined };

type Ready = {
  status: string;
  checks: Record<string, { status: string; error?: string; live?: number; dialect?: string }>;
};

async function ready(svc: TestService): Promise<{ status: number; body: Ready; text: string }> {
  const res = await fetch(`${svc.url}/readyz`);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Ready, text };
}

/** Polls /readyz until it answers `status` (a pool or a client reconnecting takes a moment). */
async function readyBecomes(svc: TestService, status: number, ms = 15_000) {
  const end = Date.now() + ms;
  for (;;) {
    const r = await ready(svc);
    if (r.status === status || Date.now() > end) return r;
    await new Promise((res) => setTimeout(res, 200));
  }
}

describe('/healthz and /readyz', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('SQLite: alive and ready, the store check alone', async () => {
    const svc = await startTestService('sqlite');
    cleanups.push(() => svc.stop());
    expect(await (await fetch(`${svc.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const r = await ready(svc);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'ok',
      checks: { store: { status: 'ok', latency_ms: expect.any(Number), dialect: 'sqlite' } },
    });
  });

  it.skipIf(!PG_AVAILABLE)(
    'PostgreSQL behind a proxy: 503 naming the store while it is cut, 200 once it is back',
    async () => {
      const db = await createTestDatabase();
      const proxy: TcpProxy = await startTcpProxy('127.0.0.1', 5432);
      const url = new URL(db.url);
      url.port = String(proxy.port);
      const svc = await startTestService('sqlite', { DATABASE_URL: url.href });
      cleanups.push(
        () => db.drop(),
        () => proxy.close(),
        () => svc.stop(),
      );
      expect((await ready(svc)).body.checks.store).toMatchObject({ status: 'ok', dialect: 'postgres' });

      proxy.cut();
      const down = await ready(svc);
      expect(down.status).toBe(503);
      expect(down.body.status).toBe('fail');
      expect(down.body.checks.store.status).toBe('fail');
      expect(down.body.checks.store.error).toMatch(/^(unreachable|no answer within)/);
      for (const leak of [String(proxy.port), '127.0.0.1', 'postgres://', url.pathname.slice(1)])
        expect(down.text).not.toContain(leak);
      // Liveness is not readiness: the process still answers.
      expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
      // /metrics still answers, saying the backlog could not be read.
      const m = parsePrometheus(await (await fetch(`${svc.url}/metrics`)).text());
      expect(valueOf(m, 'trawl_store_backlog_up')).toBe(0);
      expect(valueOf(m, 'trawl_monitors_due')).toBeNaN();

      proxy.restore();
      const back = await readyBecomes(svc, 200);
      expect(back.status).toBe(200);
      expect(back.body.checks.store.status).toBe('ok');
    },
  );

  it('Redis behind a proxy: 503 naming redis while it is cut, 200 once it is back', async () => {
    const proxy = await startTcpProxy('127.0.0.1', 6379);
    const svc = await startTestService('sqlite', { REDIS_URL: `redis://127.0.0.1:${proxy.port}` });
    cleanups.push(
      () => proxy.close(),
      () => svc.stop(),
    );
    const up = await readyBecomes(svc, 200, 5000);
    expect(up.body.checks).toMatchObject({ store: { status: 'ok' }, redis: { status: 'ok' } });
    // Not scale-out (SQLite): no worker is needed.
    expect(up.body.checks.workers).toBeUndefined();

    proxy.cut();
    const down = await ready(svc);
    expect(down.status).toBe(503);
    // The check is bounded: it says it saw no answer (or none could be had), not a hang.
    expect(down.body.checks.redis.status).toBe('fail');
    expect(down.body.checks.redis.error).toMatch(/^(unreachable|no answer within)/);
    expect(down.body.checks.store.status).toBe('ok');
    expect(down.text).not.toContain(String(proxy.port));

    proxy.restore();
    expect((await readyBecomes(svc, 200)).status).toBe(200);
  });

  it.skipIf(!PG_AVAILABLE)(
    'scale-out: ready only while a worker is alive; /metrics counts workers and BullMQ depth',
    async () => {
      const prefix = `trawl-test-ops-${process.pid}-${Date.now()}`;
      const svc = await startTestService('postgres', { REDIS_URL, TRAWL_QUEUE_PREFIX: prefix });
      cleanups.push(async () => {
        await svc.stop();
        const redis = new Redis(REDIS_URL);
        const keys = await redis.keys(`${prefix}:*`);
        if (keys.length) await redis.del(...keys);
        await redis.quit();
      });
      const none = await ready(svc);
      expect(none.status).toBe(503);
      expect(none.body.checks).toMatchObject({
        store: { status: 'ok' },
        redis: { status: 'ok' },
        workers: { status: 'fail', live: 0 },
      });
      expect(none.body.checks.workers.error).toContain('trawl worker');

      const worker = await startWorker({ ...svc.config, workerMetricsPort: 0 }, quiet, {
        queuePrefix: prefix,
        runConcurrency: 2,
        deliveryConcurrency: 2,
      });
      let stopped = false;
      cleanups.push(() => (stopped ? Promise.resolve() : worker.close()));
      const up = await ready(svc);
      expect(up.status).toBe(200);
      expect(up.body.checks.workers).toEqual({ status: 'ok', live: 1 });
      const m = parsePrometheus(await (await fetch(`${svc.url}/metrics`)).text());
      expect(valueOf(m, 'trawl_workers_live')).toBe(1);
      // The API process holds no queue: the depth comes from BullMQ's counts in Redis.
      for (const queue of ['monitor-runs', 'webhook-deliveries'])
        for (const state of ['waiting', 'active', 'delayed'])
          expect(
            m.get('trawl_queue_jobs')!.samples.some((s) => s.labels.queue === queue && s.labels.state === state),
            `${queue} ${state}`,
          ).toBe(true);

      // In scale-out the worker does the jobs' pages: its own /metrics counts them.
      const site = await startFixtureServer({
        '/a': articlePage('A page', '<p>The text of a page that a batch job fetches, a sentence or two.</p>'),
      });
      cleanups.push(() => site.close());
      const { key } = await svc.newKey(5);
      const job = (await (
        await svc.post('/v1/batch/scrape', { urls: [`${site.url}/a`, `${site.url}/missing`] }, key)
      ).json()) as { job: { job_id: string } };
      for (let i = 0; i < 100; i++) {
        const j = (await (
          await fetch(`${svc.url}/v1/jobs/${job.job.job_id}`, { headers: { authorization: `Bearer ${key}` } })
        ).json()) as { job: { state: string } };
        if (j.job.state === 'completed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(worker.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const wm = parsePrometheus(await (await fetch(`${worker.metricsUrl}/metrics`)).text());
      expect(valueOf(wm, 'trawl_job_pages_total', { kind: 'batch', outcome: 'done' })).toBe(1);
      expect(valueOf(wm, 'trawl_job_pages_total', { kind: 'batch', outcome: 'failed' })).toBe(1);
      expect(valueOf(wm, 'trawl_page_fetches_total', { outcome: 'ok' })).toBe(1);
      expect(wm.get('trawl_queue_jobs')!.samples.length).toBeGreaterThanOrEqual(6);
      expect(await (await fetch(`${worker.metricsUrl}/healthz`)).json()).toEqual({ status: 'ok' });

      await worker.close();
      stopped = true;
      // A clean stop leaves the set at once (a killed worker drops out when its beat expires).
      const gone = await ready(svc);
      expect(gone.status).toBe(503);
      expect(gone.body.checks.workers).toMatchObject({ status: 'fail', live: 0 });
    },
  );
});
