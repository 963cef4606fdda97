/**
 * An account's jobs share its fetch slots (TRAWL_ACCOUNT_CONCURRENCY): a synchronous crawl asked
 * while an older, large job of the same account is running gets its part of the slots at once,
 * instead of waiting for that job's whole frontier (it then answered nothing within its budget);
 * with more jobs than slots, a freed slot goes to the job with the fewest pages done, not the oldest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';

const BIG = 100;

describe.each(DIALECTS)("an account's jobs share its slots (%s)", (dialect) => {
  let svc: TestService;
  let big: FixtureServer;
  let small: FixtureServer;
  beforeAll(async () => {
    big = await startFixtureServer({
      '/': articlePage(
        'Catalogue',
        `<p>A catalogue of many slow pages.</p>${Array.from({ length: BIG }, (_, i) => `<a href="/i/${i}">Item ${i}</a>`).join(' ')}`,
      ),
    });
    for (let i = 0; i < BIG; i++)
      big.route(`/i/${i}`, async (_q, res) => {
        await new Promise((r) => setTimeout(r, 500));
        if (!res.destroyed)
          res.writeHead(200, { 'content-type': 'text/html' }).end(articlePage(`Item ${i}`, `<p>Item ${i}.</p>`));
      });
    small = await startFixtureServer({
      '/': articlePage('Home', '<p>A small site of three pages.</p><a href="/a">A</a> <a href="/b">B</a>'),
      '/a': articlePage('A', '<p>Page A of the small site.</p>'),
      '/b': articlePage('B', '<p>Page B of the small site.</p>'),
    });
    svc = await startTestService(dialect, { TRAWL_ACCOUNT_CONCURRENCY: '2' });
  });
  afterAll(async () => {
    await svc?.stop();
    await big?.close();
    await small?.close();
  });

  it('a sync crawl is answered while older jobs of the same account, as many as its slots, still have long frontiers', async () => {
    const { key } = await svc.newKey(5);
    const headers = { authorization: `Bearer ${key}` };
    // Two large jobs, as many as the account's slots: each holds one whenever a page of it ends.
    const ids: string[] = [];
    for (const q of ['a', 'b']) {
      const res = await svc.post(
        '/v1/crawl',
        { url: `${big.url}/?${q}`, max_depth: 1, limit: BIG + 1, async: true },
        key,
      );
      ids.push((await res.json()).job.job_id);
    }
    // Their frontiers are admitted (start pages done): 100 pages of 0.5 s each, 2 at a time in all.
    for (const id of ids)
      await expect
        .poll(async () => (await (await fetch(`${svc.url}/v1/jobs/${id}`, { headers })).json()).job.progress.queued, {
          timeout: 5000,
        })
        .toBeGreaterThan(50);
    const res = await svc.post('/v1/crawl', { url: `${small.url}/`, max_depth: 1, timeout_ms: 10_000 }, key);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ total: 3, truncated: false });
    // Answered while both still have most of their frontiers (100 pages of 0.5 s, 2 at a time).
    for (const id of ids)
      expect((await (await fetch(`${svc.url}/v1/jobs/${id}`, { headers })).json()).job.progress.queued).toBeGreaterThan(
        20,
      );
    for (const id of ids) await fetch(`${svc.url}/v1/jobs/${id}`, { method: 'DELETE', headers });
  });
});
