/**
 * Scale-out on the real PostgreSQL and Redis: a stateless API process and two `trawl worker`s
 * (each its own store, engine, scheduler and BullMQ consumers) race for the same due monitors
 * and deliveries. Every due time makes one run; every event is delivered, each attempt once.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startWorker, type WorkerProcess } from '../../src/runtime.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const REDIS_URL = process.env.TRAWL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const quiet = { warn: () => undefined, error: () => undefined };

describe('two workers on PostgreSQL + Redis', () => {
  let svc: TestService;
  let site: FixtureServer;
  let hook: WebhookReceiver;
  const workers: WorkerProcess[] = [];
  const prefix = `trawl-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  let n = 0;

  beforeAll(async () => {
    site = await startFixtureServer({
      // Every fetch shows a new price: every run after the baseline finds a change.
      '/p': (_q, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><head><title>P</title></head><body><main><h1>P</h1><p class="price">$${++n}.00</p></main></body></html>`,
          ),
    });
    hook = await startWebhookReceiver();
    const env = {
      REDIS_URL,
      TRAWL_MIN_INTERVAL_SECONDS: '1',
      TRAWL_WEBHOOK_RETRY_BASE_MS: '20',
      TRAWL_DOCUMENT_WORKERS: '0',
    };
    svc = await startTestService('postgres', env);
    const config = loadConfig({
      ...env,
      DATABASE_URL: svc.config.databaseUrl!,
      TRAWL_ALLOW_PRIVATE_NETWORK: '1',
      TRAWL_DATA_DIR: svc.config.dataDir,
    });
    for (let i = 0; i < 2; i++)
      workers.push(
        await startWorker(config, quiet, { queuePrefix: prefix, runConcurrency: 8, deliveryConcurrency: 8 }),
      );
  });
  afterAll(async () => {
    for (const w of workers) await w.close();
    await svc?.stop();
    await site?.close();
    await hook?.close();
    const redis = new Redis(REDIS_URL);
    const found = await redis.keys(`${prefix}:*`);
    if (found.length) await redis.del(...found);
    await redis.quit();
  });

  it('the API process runs no scheduler; workers make each run once and each delivery attempt once', async () => {
    expect(svc.scheduler).toBeUndefined();
    const { key } = await svc.newKey(1000);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await svc.post(
        '/v1/monitors',
        { url: `${site.url}/p`, interval: '1s', watch: ['price'], webhook: hook.url, schema: { price: 'number' } },
        key,
      );
      ids.push(((await r.json()) as any).monitor.monitor_id);
    }
    // The receiver is down for the first four seconds: those events are retried.
    hook.failNext(1_000_000, 500);
    await new Promise((r) => setTimeout(r, 4000));
    hook.failNext(0);
    for (const id of ids)
      await fetch(`${svc.url}/v1/monitors/${id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ state: 'paused' }),
      });
    const db = svc.store.db;
    // Let retries finish.
    const end = Date.now() + 20_000;
    for (;;) {
      const open = await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('state', 'in', ['pending', 'sending'])
        .execute();
      const running = await db
        .selectFrom('monitor_runs')
        .select('id')
        .where('status', 'in', ['queued', 'running'])
        .execute();
      if (!open.length && !running.length) break;
      if (Date.now() > end) throw new Error(`${open.length} deliveries and ${running.length} runs still open`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const runs = await db.selectFrom('monitor_runs').select(['monitor_id', 'due_at', 'status', 'error']).execute();
    // Each monitor ran about once a second for four seconds, each due time once.
    expect(runs.length).toBeGreaterThanOrEqual(12 * 3);
    expect(new Set(runs.map((r) => `${r.monitor_id}|${r.due_at}`)).size).toBe(runs.length);
    // Runs still queued when the monitors were paused are skipped, not run.
    expect(
      runs.filter((r) => r.status !== 'succeeded' && !(r.status === 'skipped' && r.error?.includes('paused'))),
    ).toEqual([]);
    const events = await db.selectFrom('webhook_events').select('id').execute();
    expect(events.length).toBeGreaterThanOrEqual(12 * 2);
    const deliveries = await db.selectFrom('webhook_deliveries').selectAll().execute();
    expect(deliveries.every((d) => d.state === 'succeeded')).toBe(true);
    // Requests per event as the receiver saw them = attempts the store logged, attempt numbers without repeats.
    const perEvent = new Map<string, number>();
    for (const g of hook.received) perEvent.set(JSON.parse(g.body).id, (perEvent.get(JSON.parse(g.body).id) ?? 0) + 1);
    const attempts = await db
      .selectFrom('delivery_attempts')
      .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'delivery_attempts.delivery_id')
      .select(['webhook_deliveries.event_id', 'delivery_attempts.attempt', 'delivery_attempts.outcome'])
      .execute();
    const logged = new Map<string, number[]>();
    for (const a of attempts) logged.set(a.event_id, [...(logged.get(a.event_id) ?? []), a.attempt]);
    for (const e of events) {
      const nums = (logged.get(e.id) ?? []).sort((a, b) => a - b);
      expect(nums).toEqual(nums.map((_, i) => i + 1));
      expect(perEvent.get(e.id)).toBe(nums.length);
    }
    // Failures during the first four seconds were retried: some events took more than one attempt.
    expect([...perEvent.values()].some((c) => c > 1)).toBe(true);
    // (No total-time assert: a drain that never ends fails the bounded wait above, by its open count.)
  });
});
