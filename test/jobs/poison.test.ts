/**
 * A page whose worker died on each of its MAX_ITEM_ATTEMPTS claims (leases passed) is not tried a
 * fourth time: it ends as a failed page and its job completes, instead of stalling for ever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ITEM_ATTEMPTS } from '../../src/jobs/runner.js';
import { jobs } from '../../src/store/index.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('jobs: a page that kills its workers', () => {
  let svc: TestService;
  let site: FixtureServer;
  let fetched = 0;
  beforeAll(async () => {
    site = await startFixtureServer();
    site.route('/ok', articlePage('Fine', '<p>A page with words enough to be the main content.</p>'));
    site.route('/poison', (_q, res) => {
      fetched++;
      res.writeHead(200, { 'content-type': 'text/html' }).end(articlePage('Poison', '<p>Never reached.</p>'));
    });
    svc = await startTestService('sqlite');
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it(`is given up after ${MAX_ITEM_ATTEMPTS} lost claims, as a failed page; the others are done`, async () => {
    const { accountId } = await svc.newKey(5);
    const db = svc.store.db;
    const at = new Date(Date.now() - 3600_000).toISOString();
    // As three dead workers leave it: running, its lease long past, three claims made.
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('jobs')
        .values({
          id: 'job_poison0000000000000',
          account_id: accountId,
          kind: 'batch',
          state: 'running',
          options: '{}',
          total: 2,
          max_items: 2,
          seq_next: 2,
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
        .values([
          {
            job_id: 'job_poison0000000000000',
            seq: 0,
            url: `${site.url}/poison`,
            state: 'running',
            lease_until: at,
            attempts: MAX_ITEM_ATTEMPTS,
          },
          {
            job_id: 'job_poison0000000000000',
            seq: 1,
            url: `${site.url}/ok`,
            state: 'queued',
            lease_until: null,
            attempts: 0,
          },
        ])
        .execute();
    });
    let job = await jobs.getJob(db, accountId, 'job_poison0000000000000');
    for (let i = 0; i < 100 && job?.state !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      job = await jobs.getJob(db, accountId, 'job_poison0000000000000');
    }
    expect(job).toMatchObject({ state: 'completed', done: 1, failed: 1 });
    const pages = (await jobs.pagesAfter(db, 'job_poison0000000000000', 0, 10)).map((p) => JSON.parse(p.page));
    expect(pages.find((p) => p.url.endsWith('/poison'))).toEqual({
      url: `${site.url}/poison`,
      error: 'internal_error',
      detail: expect.stringContaining(`given up after ${MAX_ITEM_ATTEMPTS} attempts`),
    });
    expect(pages.find((p) => p.url.endsWith('/ok')).markdown).toContain('main content');
    expect(fetched).toBe(0);
  });
});
