/**
 * The database away for a few seconds while pages are being fetched: the pages that finish
 * meanwhile are written once it is back (the runner retries the write under the same claim), not
 * dropped and fetched again a lease later; pages whose host turn comes meanwhile are fetched (the
 * cancel check cannot read the job's state then), not failed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../src/store/index.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { createTestDatabase, startTestService, type TestService, PG_AVAILABLE } from '../helpers/service.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

describe.skipIf(!PG_AVAILABLE)('jobs: a PostgreSQL outage while pages are in flight', () => {
  let pg: Awaited<ReturnType<typeof createTestDatabase>>;
  let proxy: TcpProxy;
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer();
    site.route('/slow', async (_q, res) => {
      await new Promise((r) => setTimeout(r, 1500));
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(articlePage('Slow', '<p>A page that takes its time, with words enough to be content.</p>'));
    });
    site.route(
      '/robots.txt',
      (_q, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 1\n'),
    );
    site.route(
      '/c/',
      articlePage(
        'Hub',
        `<p>A hub linking the pages of a polite site.</p>${[0, 1, 2, 3, 4].map((i) => `<a href="/c/${i}">C${i}</a>`).join(' ')}`,
      ),
    );
    for (let i = 0; i < 5; i++)
      site.route(
        `/c/${i}`,
        articlePage(`C${i}`, `<p>Page ${i} of a polite site, with words enough to be content.</p>`),
      );
    pg = await createTestDatabase();
    const u = new URL(pg.url);
    proxy = await startTcpProxy(u.hostname, Number(u.port) || 5432);
    u.port = String(proxy.port);
    // The embedded runner on PostgreSQL, reached through a proxy the test can cut.
    svc = await startTestService('sqlite', { DATABASE_URL: u.href });
  }, 60_000);
  afterAll(async () => {
    proxy?.restore();
    await svc?.stop();
    await proxy?.close();
    await pg?.drop();
    await site?.close();
  });

  it('pages fetched during the outage are written after it, each fetched once', async () => {
    const { key, accountId } = await svc.newKey(5);
    const urls = [0, 1, 2, 3].map((i) => `${site.url}/slow?i=${i}`);
    const id = ((await (await svc.post('/v1/batch/scrape', { urls }, key)).json()) as any).job.job_id as string;
    while (site.hits('/slow') < 4) await new Promise((r) => setTimeout(r, 20));
    proxy.cut();
    await new Promise((r) => setTimeout(r, 3000));
    proxy.restore();
    const end = Date.now() + 15_000;
    let job = await jobs.getJob(svc.store.db, accountId, id).catch(() => undefined);
    while (job?.state !== 'completed' && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 200));
      job = await jobs.getJob(svc.store.db, accountId, id).catch(() => undefined);
    }
    expect(job).toMatchObject({ state: 'completed', done: 4, failed: 0 });
    expect(site.hits('/slow')).toBe(4);
  }, 40_000);

  it('crawl pages whose Crawl-delay turn comes during the outage are fetched, not failed', async () => {
    const { key, accountId } = await svc.newKey(5);
    const r = await svc.post(
      '/v1/crawl',
      { url: `${site.url}/c/`, async: true, max_depth: 1, use_sitemap: false },
      key,
    );
    const id = ((await r.json()) as any).job.job_id as string;
    while (site.hits('/c/0') + site.hits('/c/1') < 1) await new Promise((res) => setTimeout(res, 20));
    proxy.cut();
    await new Promise((res) => setTimeout(res, 2500));
    proxy.restore();
    const end = Date.now() + 20_000;
    let job = await jobs.getJob(svc.store.db, accountId, id).catch(() => undefined);
    while (job?.state !== 'completed' && Date.now() < end) {
      await new Promise((res) => setTimeout(res, 200));
      job = await jobs.getJob(svc.store.db, accountId, id).catch(() => undefined);
    }
    const pages = (await jobs.pagesAfter(svc.store.db, id, 0, 100)).map((p) => JSON.parse(p.page));
    expect(pages.filter((p) => p.error)).toEqual([]);
    expect(job).toMatchObject({ state: 'completed', done: 6, failed: 0 });
    expect([0, 1, 2, 3, 4].map((i) => site.hits(`/c/${i}`))).toEqual([1, 1, 1, 1, 1]);
  }, 40_000);

  it('a synchronous crawl waiting through the outage answers once the store is back, charged once', async () => {
    const { key, accountId } = await svc.newKey(5);
    site.route(
      '/s/',
      articlePage(
        'Slow hub',
        `<p>A hub whose pages take their time.</p>${[0, 1, 2].map((i) => `<a href="/slow?s=${i}">S${i}</a>`).join(' ')}`,
      ),
    );
    const before = site.hits('/slow');
    const answer = svc.post(
      '/v1/crawl',
      { url: `${site.url}/s/`, max_depth: 1, use_sitemap: false, respect_robots: false },
      key,
    );
    while (site.hits('/slow') < before + 3) await new Promise((r) => setTimeout(r, 20));
    proxy.cut();
    await new Promise((r) => setTimeout(r, 3000));
    proxy.restore();
    const res = await answer;
    expect(res.status).toBe(200);
    const body = (await res.json()) as { total: number; errors: unknown[] };
    expect(body).toMatchObject({ total: 4, errors: [] });
    expect(site.hits('/slow')).toBe(before + 3);
    expect(await svc.credits(accountId)).toBe(4);
  }, 40_000);
});
