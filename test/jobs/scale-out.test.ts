/**
 * An async crawl in scale-out (API + two `trawl worker` processes on PostgreSQL and Redis, pages as BullMQ jobs): the
 * workers share the frontier through the store; one is SIGKILLed mid-crawl. Its items come back
 * when their leases pass (30 s) and the crawl completes with every page exactly once, none missing.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { accounts, keys } from '../../src/store/index.js';
import { openStore } from '../../src/store/index.js';
import { articlePage, startFixtureServer } from '../helpers/fixture-server.js';
import { createTestDatabase, PG_AVAILABLE } from '../helpers/service.js';
import { launchTrawl } from '../helpers/trawl-process.js';

const REDIS_URL = process.env.TRAWL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PAGES = 240;

const launch = (args: string[], env: Record<string, string>) => launchTrawl(args, env);

describe.skipIf(!PG_AVAILABLE)('async crawl across two workers, one killed', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('every page once, none missing, after a worker is SIGKILLed mid-crawl', async () => {
    const pg = await createTestDatabase();
    cleanup.push(() => pg.drop());
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-jobs-so-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const prefix = `trawl-jobs-${process.pid}-${Date.now()}`;
    cleanup.push(async () => {
      const redis = new Redis(REDIS_URL);
      const found = await redis.keys(`${prefix}:*`);
      if (found.length) await redis.del(...found);
      await redis.quit();
    });
    const site = await startFixtureServer();
    cleanup.push(() => site.close());
    site.route(
      '/',
      articlePage(
        'Home',
        `<p>A catalogue with many pages, each one linked from here.</p>${Array.from({ length: PAGES }, (_, i) => `<a href="/item/${i}">Item ${i}</a>`).join(' ')}`,
      ),
    );
    for (let i = 0; i < PAGES; i++) {
      site.route(`/item/${i}`, async (_q, res) => {
        await new Promise((r) => setTimeout(r, 60));
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            articlePage(`Item ${i}`, `<p>The page of item ${i}, with words enough to be the content of a page.</p>`),
          );
      });
    }
    const env = {
      PORT: '0',
      TRAWL_DATA_DIR: dataDir,
      DATABASE_URL: pg.url,
      REDIS_URL,
      TRAWL_QUEUE_PREFIX: prefix,
      TRAWL_ALLOW_PRIVATE_NETWORK: '1',
      TRAWL_DOCUMENT_WORKERS: '0',
      LOG_LEVEL: 'silent',
    };
    const store = await openStore({ dataDir, databaseUrl: pg.url });
    cleanup.push(() => store.close());
    const acc = await accounts.createAccount(store.db, { email: 'jobs-so@test.local', credits: 10 });
    await accounts.setRateLimitCeiling(store.db, acc.id, 100_000);
    const { key } = await keys.createApiKey(store.db, { accountId: acc.id, rateLimitPerMinute: 100_000 });
    const procs: ChildProcess[] = [];
    cleanup.push(() => procs.forEach((p) => p.kill('SIGKILL')));
    const serve = await launch(['serve'], env);
    procs.push(serve.child);
    const api = JSON.parse(serve.line).url as string;
    const workers = [await launch(['worker'], env), await launch(['worker'], env)];
    procs.push(...workers.map((w) => w.child));

    const call = async (method: string, path: string, body?: unknown) =>
      (await (
        await fetch(`${api}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: body ? JSON.stringify(body) : undefined,
        })
      ).json()) as any;
    const id = (
      await call('POST', '/v1/crawl', {
        url: `${site.url}/`,
        async: true,
        max_depth: 1,
        limit: 1000,
        use_sitemap: false,
      })
    ).job.job_id;
    for (;;) {
      const j = (await call('GET', `/v1/jobs/${id}?limit=1`)).job;
      if (j.progress.done >= 40) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    workers[0].child.kill('SIGKILL');
    const end = Date.now() + 90_000;
    let job: any;
    for (;;) {
      job = (await call('GET', `/v1/jobs/${id}?limit=1`)).job;
      if (job.state === 'completed') break;
      if (Date.now() > end) throw new Error(`job still ${job.state}: ${JSON.stringify(job.progress)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const pages: any[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await call('GET', `/v1/jobs/${id}?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(...r.pages);
      cursor = r.next_cursor;
    } while (cursor);
    const urls = pages.map((p) => new URL(p.url).pathname);
    expect(pages.filter((p) => p.error)).toEqual([]);
    expect(urls).toHaveLength(PAGES + 1);
    expect(new Set(urls).size).toBe(PAGES + 1);
    expect(job.progress).toEqual({ done: PAGES + 1, failed: 0, queued: 0 });
    // Every page went through BullMQ: its event stream has a completed job for each one — but for
    // the pages the killed worker wrote in its last moment, before BullMQ heard the job was done
    // (at most its 16 in hand).
    const redis = new Redis(REDIS_URL);
    const events = await redis.xrange(`${prefix}:job-pages:events`, '-', '+');
    await redis.quit();
    expect(events.filter(([, f]) => f[0] === 'event' && f[1] === 'completed').length).toBeGreaterThanOrEqual(
      PAGES + 1 - 16,
    );
  }, 150_000);
});
