/**
 * The database away for a few seconds while pages are being fetched: the pages that finish
 * meanwhile are written once it is back (the runner retries the write under the same claim), not
 * dropped and fetched again a lease later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../src/store/index.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { createTestDatabase, startTestService, type TestService } from '../helpers/service.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

describe('jobs: a PostgreSQL outage while pages are in flight', () => {
  let pg: Awaited<ReturnType<typeof createTestDatabase>>;
  let proxy: TcpProxy;
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer();
    site.route('/slow', async (_q, res) => {
      await new Promise((r) => setTimeout(r, 1500));
      res.writeHead(200, { 'content-type': 'text/html' }).end(articlePage('Slow', '<p>A page that takes its time, with words enough to be content.</p>'));
    });
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
});
