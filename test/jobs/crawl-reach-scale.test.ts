/**
 * A crawl of a 10,000-page site reaches every page (issue 39: an async crawl of a 10,000-page site
 * whose pages link the next and 8 others ended `completed` with 6,901): the service as one
 * process on SQLite, and in scale-out (PostgreSQL, Redis, two `trawl worker` processes sharing
 * the frontier). Each reachable page once, at its breadth-first depth, none missing.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { accounts, keys, openStore } from '../../src/store/index.js';
import { pageNumber, randomGraph, reach, serveGraph } from '../helpers/link-graph.js';
import { jobClient } from '../helpers/job-client.js';
import { createTestDatabase, PG_AVAILABLE } from '../helpers/service.js';
import { launchTrawl } from '../helpers/trawl-process.js';

const REDIS_URL = process.env.TRAWL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PAGES = 10_000;

describe('a 10,000-page crawl reaches every page', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it.each(
    (
      [
        ['SQLite, one process', false],
        ['PostgreSQL and Redis, two workers', true],
      ] as [string, boolean][]
    ).filter(([, scaleOut]) => PG_AVAILABLE || !scaleOut),
  )(
    '%s',
    async (_name, scaleOut) => {
      const g = randomGraph(PAGES, 8, 39);
      const want = reach(g, 10);
      const site = await serveGraph(g);
      cleanup.push(() => site.close());
      const dataDir = mkdtempSync(join(tmpdir(), 'trawl-reach-'));
      cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const pg = scaleOut ? await createTestDatabase() : undefined;
      if (pg) cleanup.push(() => pg.drop());
      const prefix = `trawl-reach-${process.pid}-${Date.now()}`;
      if (scaleOut)
        cleanup.push(async () => {
          const redis = new Redis(REDIS_URL);
          const found = await redis.keys(`${prefix}:*`);
          if (found.length) await redis.del(...found);
          await redis.quit();
        });
      const env: Record<string, string> = {
        PORT: '0',
        TRAWL_DATA_DIR: dataDir,
        TRAWL_ALLOW_PRIVATE_NETWORK: '1',
        LOG_LEVEL: 'silent',
        ...(pg ? { DATABASE_URL: pg.url, REDIS_URL, TRAWL_QUEUE_PREFIX: prefix } : {}),
      };
      const store = await openStore({ dataDir, databaseUrl: pg?.url });
      const acc = await accounts.createAccount(store.db, { email: 'reach@test.local', credits: 10 });
      await accounts.setRateLimitCeiling(store.db, acc.id, 100_000);
      const { key } = await keys.createApiKey(store.db, { accountId: acc.id, rateLimitPerMinute: 100_000 });
      await store.close();
      const procs: ChildProcess[] = [];
      cleanup.push(() => procs.forEach((p) => p.kill('SIGKILL')));
      const serve = await launchTrawl(['serve'], env);
      procs.push(serve.child);
      if (scaleOut) for (let w = 0; w < 2; w++) procs.push((await launchTrawl(['worker'], env)).child);
      const api = JSON.parse(serve.line).url as string;
      const jobs = jobClient(api, key);
      const made = await jobs.call('POST', '/v1/crawl', {
        url: `${site.url}/g/0`,
        async: true,
        max_depth: 10,
        limit: 20_000,
        use_sitemap: false,
      });
      const id = made.job.job_id;
      const job = await jobs.finished(id, 400_000);
      const depth = new Map<number, number>();
      const pages = await jobs.pages(id);
      for (const p of pages) {
        expect(p.error).toBeUndefined();
        depth.set(pageNumber(p.url), p.depth);
      }
      expect(job).toMatchObject({ state: 'completed', truncated: false, not_fetched: 0 });
      expect(pages.length).toBe(depth.size);
      expect([...want.keys()].filter((n) => !depth.has(n)).slice(0, 10)).toEqual([]);
      expect(depth.size).toBe(want.size);
      expect([...want].filter(([n, d]) => depth.get(n) !== d).slice(0, 10)).toEqual([]);
    },
    480_000,
  );
});
