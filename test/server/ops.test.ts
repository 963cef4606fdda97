/**
 * The operator pieces on their own (issue 29): the start-up banner's text; terminal logs that are
 * pretty and still redacted; worker heartbeats that expire; the store backlog behind the /metrics
 * gauges; failure words that carry no address.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startupBanner } from '../../src/server/ops/banner.js';
import { failureOf } from '../../src/server/ops/health.js';
import { loggerOptions } from '../../src/server/ops/logging.js';
import { HEARTBEAT_TTL_MS, heartbeatKey, liveWorkers, WorkerHeartbeat } from '../../src/queue/heartbeat.js';
import { readBacklog } from '../../src/store/repos/backlog.js';
import { buildServer } from '../../src/server/app.js';
import { accounts, jobs, monitors, newId, openStore, webhooks } from '../../src/store/index.js';
import { MemoryTokenBuckets } from '../../src/server/token-bucket.js';
import type { Engine } from '../../src/engine/index.js';

const REDIS_URL = process.env.TRAWL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('start-up banner', () => {
  const config = {
    host: '127.0.0.1',
    dataDir: '/srv/trawl/data',
    databaseUrl: undefined,
    redisUrl: undefined,
    metricsToken: undefined,
  };

  it('says where the API, the dashboard and the reference are, and how to make the first account and key', () => {
    const text = startupBanner({ url: 'http://127.0.0.1:3000', config });
    expect(text).toContain('API         http://127.0.0.1:3000/v1');
    expect(text).toContain('Dashboard   http://127.0.0.1:3000/\n');
    expect(text).toContain('API docs    http://127.0.0.1:3000/docs');
    expect(text).toContain('http://127.0.0.1:3000/v1/openapi.json');
    expect(text).toContain('http://127.0.0.1:3000/readyz');
    expect(text).toContain('embedded: SQLite in /srv/trawl/data');
    // The commands exist in the CLI as written (account create --email --password --credits; keys create --email).
    expect(text).toContain(
      "npx trawl account create --email you@example.com --password 'a long passphrase' --credits 1000",
    );
    expect(text).toContain('npx trawl keys create --email you@example.com');
    expect(text).toContain('curl -s http://127.0.0.1:3000/v1/scrape -H "Authorization: Bearer trawl_…"');
    expect(text).toContain('no token: this address is local only');
    expect(text).not.toContain('every interface');
  });

  it('names the data dir in the CLI commands when it is not ./data, so the key lands in the store the server reads', () => {
    const local = startupBanner({ url: 'http://127.0.0.1:3000', config: { ...config, dataDir: resolve('./data') } });
    expect(local).toContain('    npx trawl keys create --email you@example.com');
    const elsewhere = startupBanner({ url: 'http://127.0.0.1:3000', config: { ...config, dataDir: "/srv/it's data" } });
    expect(elsewhere).toContain(
      "    TRAWL_DATA_DIR='/srv/it'\\''s data' npx trawl account create --email you@example.com",
    );
    expect(elsewhere).toContain(
      "    TRAWL_DATA_DIR='/srv/it'\\''s data' npx trawl keys create --email you@example.com",
    );
    const pg = startupBanner({
      url: 'http://127.0.0.1:3000',
      config: { ...config, databaseUrl: 'postgres://u:pw@db/x' },
    });
    expect(pg).toContain('with the same DATABASE_URL in its environment or .env');
    expect(pg).toContain('    npx trawl keys create');
    expect(pg).not.toContain('pw@db');
  });

  it('on a wildcard address shows where a browser can go, warns about /metrics, and never prints a connection string', () => {
    const text = startupBanner({
      url: 'http://0.0.0.0:8080',
      config: {
        ...config,
        host: '0.0.0.0',
        databaseUrl: 'postgres://trawl:s3cret-pass@db.internal:5432/trawl',
        redisUrl: 'redis://:r3dis-pass@cache.internal:6379',
      },
    });
    expect(text).toContain('Dashboard   http://localhost:8080/');
    expect(text).toContain('Listening on every interface (HOST=0.0.0.0)');
    expect(text).toContain('open to anyone who reaches this port: set TRAWL_METRICS_TOKEN');
    expect(text).toContain('scale-out');
    expect(text).toContain('trawl worker');
    for (const secret of ['s3cret-pass', 'r3dis-pass', 'db.internal', 'cache.internal', 'postgres://'])
      expect(text).not.toContain(secret);
    const ipv6 = startupBanner({
      url: 'http://[::]:3000',
      config: { ...config, host: '::', metricsToken: 'tok-123456' },
    });
    expect(ipv6).toContain('API docs    http://localhost:3000/docs');
    expect(ipv6).toContain('needs Authorization: Bearer $TRAWL_METRICS_TOKEN');
    expect(ipv6).not.toContain('tok-123456');
  });
});

describe('server logs', () => {
  it('are JSON lines off a terminal and pretty lines on one, redacted either way', async () => {
    expect(loggerOptions({ level: 'info', pretty: false })).toEqual({ level: 'info' });
    const out = new PassThrough();
    const lines: string[] = [];
    out.on('data', (c) => lines.push(String(c)));
    const secret = 'llm-key-8c1d2e3f4a5b';
    const dir = mkdtempSync(join(tmpdir(), 'trawl-logs-'));
    const config = loadConfig({ TRAWL_DATA_DIR: dir, LLM_API_KEY: secret });
    const store = await openStore({ dataDir: dir, sqliteFile: ':memory:' });
    const engine = { close: async () => undefined } as unknown as Engine;
    const app = await buildServer(
      { config, store, engine, rateLimiter: new MemoryTokenBuckets() },
      { logger: loggerOptions({ level: 'info', pretty: true, destination: out }) },
    );
    try {
      app.log.info({ upstream: `https://llm.example/v1?key=${secret}` }, `calling the model with ${secret}`);
      await new Promise((r) => setTimeout(r, 50));
      const text = lines.join('');
      // Pretty: a level word and the message, not a JSON object.
      expect(text).toMatch(/INFO.*calling the model with \[redacted\]/);
      expect(text).not.toMatch(/^\{"level"/m);
      expect(text).toContain('key=[redacted]');
      expect(text).not.toContain(secret);
    } finally {
      await app.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('worker heartbeats', () => {
  const prefix = `trawl-test-hb-${process.pid}-${Date.now()}`;
  const redis = new Redis(REDIS_URL);
  afterAll(async () => {
    await redis.del(heartbeatKey(prefix));
    await redis.quit();
  });

  it('count live workers; a beat expires after its TTL; a clean stop leaves at once', async () => {
    const a = new WorkerHeartbeat(REDIS_URL, prefix);
    const b = new WorkerHeartbeat(REDIS_URL, prefix);
    await a.start();
    await b.start();
    expect(a.id).not.toBe(b.id);
    expect(await liveWorkers(redis, prefix)).toBe(2);
    // b's last beat was long ago (a worker that died): it no longer counts, and the next beat prunes it.
    await b.beat(Date.now() - HEARTBEAT_TTL_MS - 1000);
    expect(await liveWorkers(redis, prefix)).toBe(1);
    await a.beat();
    expect(await redis.zcard(heartbeatKey(prefix))).toBe(1);
    // The set itself expires when nobody beats.
    expect(await redis.pttl(heartbeatKey(prefix))).toBeGreaterThan(HEARTBEAT_TTL_MS);
    await a.stop();
    expect(await liveWorkers(redis, prefix)).toBe(0);
    await b.stop();
  });
});

describe('store backlog', () => {
  it('counts what is due and how late, deliveries due, jobs by state and their pages left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-backlog-'));
    const store = await openStore({ dataDir: dir });
    try {
      const db = store.db;
      const now = new Date('2026-11-26T12:00:00.000Z');
      const ago = (s: number) => new Date(now.getTime() - s * 1000).toISOString();
      const acc = await accounts.createAccount(db, { email: 'ops@test.local', credits: 10 });
      const monitor = (id: string, state: 'active' | 'paused', next: string) =>
        monitors.insertMonitor(db, {
          id,
          account_id: acc.id,
          url: 'https://example.com/',
          interval: '1h',
          interval_seconds: 3600,
          watch: '["title"]',
          webhook: 'https://hooks.example.com/',
          marketplace: null,
          schema: null,
          conditions: null,
          state,
          health: 'ok',
          consecutive_failures: 0,
          last_values: null,
          last_success_at: null,
          last_run_at: null,
          next_run_at: next,
          created_at: ago(9000),
          updated_at: ago(9000),
        });
      expect(await readBacklog(db, now)).toMatchObject({
        monitorsDue: 0,
        monitorLagSeconds: 0,
        deliveriesDue: 0,
        jobPagesQueued: 0,
      });
      await monitor('mon_due00000000000000000', 'active', ago(90));
      await monitor('mon_paused0000000000000', 'paused', ago(5000));
      await monitor('mon_later00000000000000', 'active', new Date(now.getTime() + 60_000).toISOString());
      let b = await readBacklog(db, now);
      expect(b.monitorsDue).toBe(1);
      expect(b.monitorLagSeconds).toBeCloseTo(90, 3);
      // A run queued 120 s after its due time is the oldest wait.
      await db
        .insertInto('monitor_runs')
        .values({
          id: 'run_queued0000000000000',
          monitor_id: 'mon_later00000000000000',
          account_id: acc.id,
          trigger: 'schedule',
          status: 'queued',
          due_at: ago(120),
          lease_until: null,
          credits: 0,
        })
        .execute();
      await db
        .insertInto('monitor_runs')
        .values({
          id: 'run_running000000000000',
          monitor_id: 'mon_paused0000000000000',
          account_id: acc.id,
          trigger: 'manual',
          status: 'running',
          due_at: ago(10),
          started_at: ago(9),
          lease_until: now.toISOString(),
          credits: 1,
        })
        .execute();
      b = await readBacklog(db, now);
      expect(b.monitorLagSeconds).toBeCloseTo(120, 3);
      expect(b.runsOpen).toEqual({ queued: 1, running: 1 });
      // A delivery due now counts; one whose retry is later does not.
      await db.transaction().execute(async (trx) => {
        await webhooks.writeEvent(
          trx,
          { monitorId: 'mon_later00000000000000', accountId: acc.id, runId: 'run_queued0000000000000', at: ago(5) },
          (seq) => ({ id: newId('evt'), body: JSON.stringify({ sequence: seq }) }),
        );
        await webhooks.writeEvent(
          trx,
          {
            monitorId: 'mon_later00000000000000',
            accountId: acc.id,
            runId: 'run_queued0000000000000',
            at: new Date(now.getTime() + 30_000).toISOString(),
          },
          (seq) => ({ id: newId('evt'), body: JSON.stringify({ sequence: seq }) }),
        );
      });
      await jobs.createJob(db, {
        id: 'job_running000000000000',
        accountId: acc.id,
        kind: 'batch',
        options: {},
        urls: Array.from({ length: 10 }, (_, i) => `https://example.com/${i}`),
        maxItems: 10,
        at: ago(60),
      });
      await db
        .updateTable('jobs')
        .set({ state: 'running', done: 3, failed: 1 })
        .where('id', '=', 'job_running000000000000')
        .execute();
      await jobs.createJob(db, {
        id: 'job_done00000000000000',
        accountId: acc.id,
        kind: 'crawl',
        options: {},
        urls: ['https://example.com/'],
        maxItems: 1,
        at: ago(60),
      });
      await db
        .updateTable('jobs')
        .set({ state: 'completed', done: 1 })
        .where('id', '=', 'job_done00000000000000')
        .execute();
      b = await readBacklog(db, now);
      expect(b.deliveriesDue).toBe(1);
      expect(b.deliveriesSending).toBe(0);
      expect(b.jobs).toEqual({ queued: 0, running: 1, completed: 1, failed: 0, cancelled: 0 });
      expect(b.jobPagesQueued).toBe(6);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('readiness failures', () => {
  it('say what happened in words that carry no address', () => {
    expect(failureOf(Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:5432'), { code: 'ECONNREFUSED' }))).toBe(
      'unreachable (ECONNREFUSED)',
    );
    expect(failureOf(Object.assign(new Error('x'), { code: 'ETIMEDOUT' }))).toBe('no answer within 2000 ms');
    expect(failureOf(new Error('password authentication failed for user "trawl" at db.internal'))).toBe('unreachable');
    expect(failureOf(Object.assign(new Error('x'), { code: 'postgres://u:p@h/db' }))).toBe('unreachable');
  });
});
