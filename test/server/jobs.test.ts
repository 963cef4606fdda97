/**
 * Batch scrape as a job, on both stores: accepted with 202 (1 credit), run by the process's job
 * runner from the store, read back page by page in completion order with a cursor, each URL once;
 * cancel stops new fetches; another account's job is 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';
import { prune } from '../../src/monitors/retention.js';

describe.each(DIALECTS)('jobs: batch scrape (%s)', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer();
    for (let i = 0; i < 30; i++)
      site.route(
        `/p/${i}`,
        articlePage(
          `Page ${i}`,
          `<p>The body of page number ${i}, with words enough to be the main content of it.</p>`,
        ),
      );
    site.route('/slow', async (_q, res) => {
      await new Promise((r) => setTimeout(r, 300));
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(articlePage('Slow', '<p>A page that takes its time, with words enough to be content.</p>'));
    });
    svc = await startTestService(dialect);
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const until = async <T>(fn: () => Promise<T | undefined>, ms = 20_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (v) return v;
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('runs a batch to completion; pages come back by cursor, each URL once, failures with their error', async () => {
    const { key, accountId } = await svc.newKey(5);
    const urls = [
      ...Array.from({ length: 22 }, (_, i) => `${site.url}/p/${i}`),
      `${site.url}/missing-1`,
      `${site.url}/missing-2`,
      `${site.url}/slow`,
    ];
    const created = await call('POST', '/v1/batch/scrape', key, { urls, formats: ['markdown'] });
    expect(created.status).toBe(202);
    expect(created.body.job).toMatchObject({
      kind: 'batch',
      state: 'queued',
      progress: { done: 0, failed: 0, queued: 25 },
      finished_at: null,
    });
    expect(created.body.job.job_id).toMatch(/^job_[0-9A-Za-z]{20}$/);
    expect(await svc.credits(accountId)).toBe(4);
    const id = created.body.job.job_id;
    const done = await until(async () => {
      const r = await call('GET', `/v1/jobs/${id}?limit=1`, key);
      return r.body.job.state === 'completed' ? r.body.job : undefined;
    });
    expect(done.progress).toEqual({ done: 23, failed: 2, queued: 0 });
    const pages: any[] = [];
    let cursor: string | null = null;
    let calls = 0;
    do {
      const r = await call('GET', `/v1/jobs/${id}?limit=10${cursor ? `&cursor=${cursor}` : ''}`, key);
      expect(r.status).toBe(200);
      pages.push(...r.body.pages);
      cursor = r.body.next_cursor;
      calls++;
    } while (cursor && calls < 10);
    expect(calls).toBe(3);
    expect(pages.map((p) => p.url).sort()).toEqual([...urls].sort());
    expect(pages.find((p) => p.url.endsWith('/p/7')).markdown).toContain('page number 7');
    expect(pages.filter((p) => p.error).map((p) => [p.url.split('/').pop(), p.error])).toEqual(
      expect.arrayContaining([
        ['missing-1', 'fetch_failed'],
        ['missing-2', 'fetch_failed'],
      ]),
    );
    expect((await call('GET', '/v1/jobs', key)).body.jobs.map((j: any) => j.job_id)).toEqual([id]);
  });

  it('a URL listed twice is scraped once (it was a 500: the frontier holds each URL once)', async () => {
    const { key, accountId } = await svc.newKey(5);
    const urls = [`${site.url}/p/3`, `${site.url}/p/4`, `${site.url}/p/3`];
    const created = await call('POST', '/v1/batch/scrape', key, { urls });
    expect(created.status).toBe(202);
    expect(created.body.job.progress).toEqual({ done: 0, failed: 0, queued: 2 });
    const id = created.body.job.job_id;
    const done = await until(async () => {
      const r = await call('GET', `/v1/jobs/${id}`, key);
      return r.body.job.state === 'completed' ? r.body : undefined;
    });
    expect(done.pages.map((p: any) => p.url).sort()).toEqual([`${site.url}/p/3`, `${site.url}/p/4`]);
    expect(await svc.credits(accountId)).toBe(4);
  });

  it('a job none of whose pages could be read ends failed, its pages saying why', async () => {
    const { key } = await svc.newKey(5);
    const urls = [`${site.url}/missing-a`, `${site.url}/missing-b`];
    const id = (await call('POST', '/v1/batch/scrape', key, { urls })).body.job.job_id;
    const ended = await until(async () => {
      const r = await call('GET', `/v1/jobs/${id}`, key);
      return ['completed', 'failed'].includes(r.body.job.state) ? r.body : undefined;
    });
    expect(ended.job).toMatchObject({ state: 'failed', progress: { done: 0, failed: 2, queued: 0 } });
    expect(ended.job.error).toMatch(/every page/);
    expect(ended.job.finished_at).not.toBeNull();
    expect(ended.pages.map((p: any) => p.error)).toEqual(['fetch_failed', 'fetch_failed']);
  });

  it('one answer holds at most 10 MiB of pages (one at least); the rest come by next_cursor', async () => {
    const { key, accountId } = await svc.newKey(5);
    const id = 'job_bigpages000000000000';
    const at = new Date().toISOString();
    // An ended job of six 3 MB pages, as a batch of large pages in three formats leaves it.
    const pages = Array.from({ length: 6 }, (_, i) => ({
      url: `${site.url}/big/${i}`,
      markdown: `${i}`.repeat(3_000_000),
    }));
    await svc.store.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('jobs')
        .values({
          id,
          account_id: accountId,
          kind: 'batch',
          state: 'completed',
          options: '{}',
          total: 6,
          done: 6,
          written: 6,
          max_items: 6,
          seq_next: 6,
          error: null,
          created_at: at,
          started_at: at,
          finished_at: at,
          webhook: null,
          webhook_events: null,
        })
        .execute();
      for (const [k, p] of pages.entries())
        await trx
          .insertInto('job_pages')
          .values({ job_id: id, n: k + 1, seq: k, page: JSON.stringify(p), created_at: at })
          .execute();
    });
    const got: any[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await fetch(`${svc.url}/v1/jobs/${id}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const text = await res.text();
      expect(res.status).toBe(200);
      sizes.push(text.length);
      const body = JSON.parse(text);
      got.push(...body.pages);
      cursor = body.next_cursor;
    } while (cursor && sizes.length < 10);
    expect(got.map((p) => p.url)).toEqual(pages.map((p) => p.url));
    expect(sizes).toHaveLength(2);
    expect(Math.max(...sizes)).toBeLessThan(10 * 1024 * 1024 + 1024);
  });

  it('cancel stops new fetches within a second and keeps the pages done', async () => {
    const { key } = await svc.newKey(5);
    const before = site.hits('/slow');
    const urls = Array.from({ length: 60 }, (_, i) => `${site.url}/slow?i=${i}`);
    const id = (await call('POST', '/v1/batch/scrape', key, { urls })).body.job.job_id;
    await until(async () =>
      (await call('GET', `/v1/jobs/${id}`, key)).body.job.progress.done >= 2 ? true : undefined,
    );
    const cancelled = await call('DELETE', `/v1/jobs/${id}`, key);
    expect(cancelled.body.job.state).toBe('cancelled');
    await new Promise((r) => setTimeout(r, 1000));
    const hitsAfter = site.hits('/slow');
    await new Promise((r) => setTimeout(r, 1000));
    expect(site.hits('/slow')).toBe(hitsAfter);
    expect(hitsAfter - before).toBeLessThan(60);
    const r = await call('GET', `/v1/jobs/${id}`, key);
    expect(r.body.pages.length).toBeGreaterThanOrEqual(2);
    expect(r.body.job.state).toBe('cancelled');
  });

  it("another account's job is 404; bad bodies are 400 and cost nothing", async () => {
    const a = await svc.newKey(5);
    const b = await svc.newKey(5);
    const id = (await call('POST', '/v1/batch/scrape', a.key, { urls: [`${site.url}/p/1`] })).body.job.job_id;
    expect((await call('GET', `/v1/jobs/${id}`, b.key)).status).toBe(404);
    expect((await call('DELETE', `/v1/jobs/${id}`, b.key)).status).toBe(404);
    expect((await call('GET', '/v1/jobs/job_nope', a.key)).status).toBe(404);
    expect((await call('POST', '/v1/batch/scrape', b.key, { urls: [] })).body).toEqual({
      error: 'invalid_request',
      detail: 'urls: must list at least one URL',
    });
    expect((await call('POST', '/v1/batch/scrape', b.key, { urls: ['ftp://x'] })).status).toBe(400);
    expect((await call('GET', `/v1/jobs/${id}?cursor=%%%`, a.key)).status).toBe(400);
    // Forged cursors that decode to a NUL or to invalid UTF-8: 400 on both stores (PostgreSQL refuses a NUL).
    for (const cursor of ['AHwA', '_3z_']) {
      expect((await call('GET', `/v1/jobs?cursor=${cursor}`, a.key)).body).toEqual({
        error: 'invalid_request',
        detail: 'cursor: is not a cursor this API returned; use next_cursor from the previous page',
      });
    }
    expect(await svc.credits(b.accountId)).toBe(5);
  });

  it('keeps ended jobs TRAWL_JOB_RETENTION_HOURS, then the pruner deletes them page by page', async () => {
    const { key } = await svc.newKey(5);
    const id = (
      await call('POST', '/v1/batch/scrape', key, { urls: Array.from({ length: 5 }, (_, i) => `${site.url}/p/${i}`) })
    ).body.job.job_id;
    const job = await until(async () => {
      const r = await call('GET', `/v1/jobs/${id}`, key);
      return r.body.job.state === 'completed' ? r.body.job : undefined;
    });
    const at = Date.parse(job.finished_at);
    await prune(svc.store, { retentionDays: 30, jobRetentionHours: 72, now: new Date(at + 71 * 3600_000), batch: 2 });
    expect((await call('GET', `/v1/jobs/${id}`, key)).status).toBe(200);
    const s = await prune(svc.store, {
      retentionDays: 30,
      jobRetentionHours: 72,
      now: new Date(at + 73 * 3600_000),
      batch: 2,
    });
    expect(s.jobRows).toBeGreaterThanOrEqual(11); // 5 pages + 5 items + the job, in batches of 2
    expect((await call('GET', `/v1/jobs/${id}`, key)).status).toBe(404);
  });
});
