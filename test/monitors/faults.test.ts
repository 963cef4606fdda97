/**
 * Faults in scale-out, with the real servers: `trawl serve` (API only) and two `trawl worker`
 * processes reach PostgreSQL and Redis through TCP proxies the test cuts. 16 monitors every 2 s on
 * pages whose price changes on every fetch (a quarter answer in 2.5 s); a worker is SIGKILLed and
 * restarted, the database is unreachable for 20 s while deliveries are retrying, then Redis for
 * 10 s. Once the faults are gone: every event delivered, no change sent under two ids (each
 * monitor's events chain from → to without a repeat), nothing left queued, running or pending.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { accounts, keys, openStore, type Store } from '../../src/store/index.js';
import { startFixtureServer } from '../helpers/fixture-server.js';
import { createTestDatabase, PG_AVAILABLE } from '../helpers/service.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { launchTrawl, type Launched } from '../helpers/trawl-process.js';

const REDIS = new URL(process.env.TRAWL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');

/** What each child said last (stderr) and how it ended: the failure message shows them. */
const journal: Launched[] = [];
const launch = (args: string[], env: Record<string, string>) => launchTrawl(args, env, journal);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!PG_AVAILABLE)('monitors under faults (PostgreSQL + Redis through proxies the test cuts)', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('a killed worker, the database gone 20 s and Redis gone 10 s: every change delivered once under one id, nothing stuck', async () => {
    const pgDb = await createTestDatabase();
    cleanup.push(() => pgDb.drop());
    const pgProxy: TcpProxy = await startTcpProxy('127.0.0.1', 5432);
    const redisProxy: TcpProxy = await startTcpProxy(REDIS.hostname, Number(REDIS.port) || 6379);
    cleanup.push(
      () => pgProxy.close(),
      () => redisProxy.close(),
    );
    const viaProxy = new URL(pgDb.url);
    viaProxy.port = String(pgProxy.port);
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-faults-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const prefix = `trawl-faults-${process.pid}-${Date.now()}`;
    cleanup.push(async () => {
      const redis = new Redis(REDIS.href);
      const found = await redis.keys(`${prefix}:*`);
      if (found.length) await redis.del(...found);
      await redis.quit();
    });

    const counts = new Map<string, number>();
    const site = await startFixtureServer({
      '/p': async (req, res) => {
        const m = new URL(req.url!, 'http://x').searchParams.get('m')!;
        const n = (counts.get(m) ?? 0) + 1;
        counts.set(m, n);
        if (Number(m) % 4 === 0) await sleep(2500);
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><head><title>P${m}</title></head><body><main><h1>P${m}</h1><p class="price">$${n}.00</p></main></body></html>`,
          );
      },
    });
    const hook = await startWebhookReceiver();
    cleanup.push(
      () => site.close(),
      () => hook.close(),
    );

    const env: Record<string, string> = {
      PORT: '0',
      TRAWL_DATA_DIR: dataDir,
      DATABASE_URL: viaProxy.href,
      REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
      TRAWL_QUEUE_PREFIX: prefix,
      TRAWL_ALLOW_PRIVATE_NETWORK: '1',
      TRAWL_MIN_INTERVAL_SECONDS: '1',
      TRAWL_WEBHOOK_RETRY_BASE_MS: '500',
      TRAWL_WEBHOOK_MAX_ATTEMPTS: '50',
      TRAWL_DOCUMENT_WORKERS: '0',
      LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? 'warn',
    };
    const store: Store = await openStore({ dataDir, databaseUrl: pgDb.url });
    cleanup.push(() => store.close());
    const acc = await accounts.createAccount(store.db, { email: 'faults@test.local', credits: 100_000 });
    const { key } = await keys.createApiKey(store.db, { accountId: acc.id, rateLimitPerMinute: 10_000 });
    await accounts.setRateLimitCeiling(store.db, acc.id, 10_000);

    const procs: ChildProcess[] = [];
    cleanup.push(() => procs.forEach((p) => p.kill('SIGKILL')));
    const serve = await launch(['serve'], env);
    procs.push(serve.child);
    const api = JSON.parse(serve.line).url as string;
    const workers = [await launch(['worker'], env), await launch(['worker'], env)];
    procs.push(...workers.map((w) => w.child));

    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${api}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await res.json()) as any;
    };
    const ids: string[] = [];
    for (let i = 0; i < 16; i++)
      ids.push(
        (
          await call('POST', '/v1/monitors', {
            url: `${site.url}/p?m=${i}`,
            interval: '2s',
            watch: ['price'],
            webhook: hook.url,
            schema: { price: 'number' },
          })
        ).monitor.monitor_id,
      );

    await sleep(6000);
    workers[0].child.kill('SIGKILL'); // mid-run and mid-attempt, most likely
    await sleep(3000);
    const again = await launch(['worker'], env);
    procs.push(again.child);
    await sleep(3000);
    hook.failNext(1_000_000, 503); // deliveries start retrying …
    await sleep(1500);
    pgProxy.cut(); // … and the database goes away for 20 s
    await sleep(20_000);
    pgProxy.restore();
    hook.failNext(0);
    await sleep(4000);
    redisProxy.cut();
    await sleep(3000);
    // The API keeps answering without Redis (its rate limit falls back to each process's own).
    const during = await fetch(`${api}/v1/account`, { headers: { authorization: `Bearer ${key}` } });
    expect(during.status).toBe(200);
    await sleep(7000);
    redisProxy.restore();
    await sleep(4000);
    for (const id of ids) await call('PATCH', `/v1/monitors/${id}`, { state: 'paused' });

    // Once the faults are gone nothing stays stuck: leases (runs 30 s, deliveries 20 s) bring back what died.
    const end = Date.now() + 90_000;
    for (;;) {
      const open = await store.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('state', 'in', ['pending', 'sending'])
        .execute();
      const running = await store.db
        .selectFrom('monitor_runs')
        .select('id')
        .where('status', 'in', ['queued', 'running'])
        .execute();
      if (!open.length && !running.length) break;
      if (Date.now() > end) {
        const detail = {
          deliveries: await store.db
            .selectFrom('webhook_deliveries')
            .selectAll()
            .where('state', 'in', ['pending', 'sending'])
            .execute(),
          runs: await store.db
            .selectFrom('monitor_runs')
            .selectAll()
            .where('status', 'in', ['queued', 'running'])
            .execute(),
          now: new Date().toISOString(),
          processes: journal.map((j) => ({ ...j, err: j.err.slice(-1500) })),
          redis: await (async () => {
            const redis = new Redis(REDIS.href);
            const out: Record<string, number> = {};
            for (const q of ['monitor-runs', 'webhook-deliveries']) {
              out[`${q}:wait`] = await redis.llen(`${prefix}:${q}:wait`);
              out[`${q}:active`] = await redis.llen(`${prefix}:${q}:active`);
              out[`${q}:delayed`] = await redis.zcard(`${prefix}:${q}:delayed`);
              out[`${q}:prioritized`] = await redis.zcard(`${prefix}:${q}:prioritized`);
            }
            await redis.quit();
            return out;
          })(),
        };
        throw new Error(
          `${open.length} deliveries and ${running.length} runs still open 90 s after the faults: ${JSON.stringify(detail)}`,
        );
      }
      await sleep(250);
    }

    // No process died of the faults (only the one the test killed).
    expect(
      journal
        .filter((j) => j.exit !== undefined && j.exit !== 'SIGKILL')
        .map((j) => `${j.args}: ${j.exit} ${j.err.slice(-300)}`),
    ).toEqual([]);
    const events = await store.db
      .selectFrom('webhook_events')
      .select(['id', 'monitor_id', 'body', 'created_at'])
      .execute();
    expect(events.length).toBeGreaterThan(16);
    const deliveries = await store.db.selectFrom('webhook_deliveries').select(['event_id', 'state']).execute();
    expect(deliveries.filter((d) => d.state !== 'succeeded')).toEqual([]);
    expect(new Set(deliveries.map((d) => d.event_id))).toEqual(new Set(events.map((e) => e.id)));
    // The receiver got every event (some more than once: at least once, under the same id).
    const receivedOk = new Set(hook.received.filter((r) => r.answered < 300).map((r) => JSON.parse(r.body).id));
    for (const e of events) expect(receivedOk.has(e.id)).toBe(true);
    // One change, one event: per monitor the events chain (each from = the previous to) and no value repeats.
    for (const id of ids) {
      const mine = events
        .filter((e) => e.monitor_id === id)
        .map((e) => JSON.parse(e.body))
        .sort((a, b) => a.changes.price.to - b.changes.price.to);
      const tos = mine.map((e) => e.changes.price.to);
      expect(new Set(tos).size).toBe(tos.length);
      for (let i = 1; i < mine.length; i++) expect(mine[i].changes.price.from).toBe(mine[i - 1].changes.price.to);
    }
  }, 240_000);
});
