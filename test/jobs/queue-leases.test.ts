/**
 * Scale-out: a page may wait in the BullMQ queue longer than its claim's lease (its host is
 * polite, so pages of it go one at a time). Its claim must hold while it waits — the process that
 * handed it out keeps it until a worker takes it — so no page is claimed again, fetched twice, or
 * given up as "given up after 3 attempts"; and a claim that did go stale is dropped unfetched.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/index.js';
import { HostGate } from '../../src/engine/crawl/host-gate.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { PageQueue } from '../../src/queue/pages.js';
import { jobs } from '../../src/store/index.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const REDIS_URL = process.env.TRAWL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PAGES = 24;
const LEASE_MS = 1200;

describe('jobs: claims of pages waiting in the queue (postgres + Redis)', () => {
  const prefix = `trawl-qlease-${process.pid}-${Date.now()}`;
  let svc: TestService;
  let site: FixtureServer;
  const runners: JobRunner[] = [];
  const engines: Engine[] = [];
  const fetched = new Map<string, number>();
  beforeAll(async () => {
    site = await startFixtureServer();
    site.route(
      '/',
      articlePage(
        'Hub',
        `<p>A hub page with links to every item of the site.</p>${Array.from({ length: PAGES }, (_, i) => `<a href="/p/${i}">Item ${i}</a>`).join(' ')}`,
      ),
    );
    for (let i = 0; i < PAGES; i++) {
      site.route(`/p/${i}`, async (_q, res) => {
        fetched.set(`/p/${i}`, (fetched.get(`/p/${i}`) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 250));
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            articlePage(`Item ${i}`, `<p>The page of item ${i}, with words enough to be the content of a page.</p>`),
          );
      });
    }
    // API only (scale-out: no runner of its own); two runners stand for two `trawl worker`s.
    svc = await startTestService('postgres', { REDIS_URL, TRAWL_QUEUE_PREFIX: prefix });
    // One page of the host at a time across both (as the shared gate of a polite host would do).
    const gate = new HostGate(1);
    for (let i = 0; i < 2; i++) {
      const engine = createEngine(svc.config);
      engines.push(engine);
      const runner = new JobRunner({
        store: svc.store,
        engine,
        redact: (s) => s,
        pages: new PageQueue({ redisUrl: REDIS_URL, prefix }),
        hosts: gate,
        concurrency: 3,
        leaseMs: LEASE_MS,
      });
      runner.start();
      runners.push(runner);
    }
  }, 60_000);
  afterAll(async () => {
    await Promise.all(runners.map((r) => r.stop()));
    await Promise.all(engines.map((e) => e.close()));
    await svc?.stop();
    await site?.close();
    const redis = new Redis(REDIS_URL);
    const found = await redis.keys(`${prefix}:*`);
    if (found.length) await redis.del(...found);
    await redis.quit();
  });

  it('every page fetched once and done, though pages wait in the queue several leases long', async () => {
    const { key, accountId } = await svc.newKey(5);
    const r = await svc.post(
      '/v1/crawl',
      { url: `${site.url}/`, async: true, max_depth: 1, use_sitemap: false, respect_robots: false },
      key,
    );
    expect(r.status).toBe(202);
    const id = ((await r.json()) as any).job.job_id as string;
    const end = Date.now() + 60_000;
    let job = await jobs.getJob(svc.store.db, accountId, id);
    while (job?.state !== 'completed' && Date.now() < end) {
      await new Promise((res) => setTimeout(res, 100));
      job = await jobs.getJob(svc.store.db, accountId, id);
    }
    expect(job).toMatchObject({ state: 'completed', done: PAGES + 1, failed: 0 });
    const pages = (await jobs.pagesAfter(svc.store.db, id, 0, 100)).map((p) => JSON.parse(p.page));
    expect(pages.filter((p) => p.error)).toEqual([]);
    expect([...fetched.values()].every((n) => n === 1)).toBe(true);
    expect(fetched.size).toBe(PAGES);
  }, 90_000);

  it('a worker taking a stale claim (the page was claimed again since) drops it without fetching', async () => {
    const { accountId } = await svc.newKey(5);
    const id = 'job_stale0000000000000';
    const at = new Date().toISOString();
    // Claimed twice: claim 2 holds (its lease far off); claim 1's queue job is still to be taken.
    await svc.store.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('jobs')
        .values({
          id,
          account_id: accountId,
          kind: 'batch',
          state: 'running',
          options: '{}',
          total: 1,
          max_items: 1,
          seq_next: 1,
          error: null,
          created_at: at,
          started_at: at,
          finished_at: null,
          webhook: null,
          webhook_events: null,
        })
        .execute();
      await trx
        .insertInto('job_items')
        .values({
          job_id: id,
          seq: 0,
          url: `${site.url}/p/0`,
          state: 'running',
          lease_until: new Date(Date.now() + 600_000).toISOString(),
          attempts: 2,
        })
        .execute();
    });
    const before = fetched.get('/p/0') ?? 0;
    const queue = new PageQueue({ redisUrl: REDIS_URL, prefix });
    const stale = {
      job_id: id,
      seq: 0,
      url: `${site.url}/p/0`,
      depth: 0,
      account_id: accountId,
      kind: 'batch' as const,
      options: '{}',
      attempts: 1,
    };
    await queue.add([stale]);
    const end = Date.now() + 10_000;
    while ((await queue.notTaken([stale])).length && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500));
    await queue.close();
    expect(fetched.get('/p/0') ?? 0).toBe(before);
    const item = await svc.store.db
      .selectFrom('job_items')
      .selectAll()
      .where('job_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(item).toMatchObject({ state: 'running', attempts: 2 });
  });
});
