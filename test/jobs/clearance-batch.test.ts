/**
 * A job's pages meet a JS challenge once per host (issue 42): the Cloudflare-style interstitial of
 * eval:walls is cleared by the browser on the batch's first page, and the job's next pages on that
 * host carry the cookie it set — plain HTTP requests, no second challenge. Another job has a jar
 * of its own: it clears again. One page at a time (TRAWL_ACCOUNT_CONCURRENCY 1), so the order is
 * the test's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { JobClearance, IDLE_MS, MAX_JARS } from '../../src/jobs/clearance-jars.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { ARTICLE_TEXT, startWall, type WallServer } from '../helpers/walls.js';

const CHALLENGE = '/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1';

describe('the jars of jobs', () => {
  it('one per job, kept while used, dropped when idle or past the cap (least recently used first)', () => {
    let now = 0;
    const jars = new JobClearance(() => now);
    const a = jars.for('job-a');
    expect(jars.for('job-a')).toBe(a);
    expect(jars.for('job-b')).not.toBe(a);
    now += IDLE_MS - 1;
    jars.for('job-b');
    now += 2;
    // job-a idle past IDLE_MS: dropped on the next use of any jar; job-b was used since.
    jars.for('job-c');
    expect(jars.size).toBe(2);
    expect(jars.for('job-a')).not.toBe(a);
    for (let i = 0; i < MAX_JARS + 10; i++) jars.for(`many-${i}`);
    expect(jars.size).toBe(MAX_JARS);
  });
});

describe.skipIf(!findChromium())("a batch's pages meet one challenge per host (real Chromium)", () => {
  let svc: TestService;
  let wall: WallServer;
  beforeAll(async () => {
    wall = await startWall('js-challenge');
    svc = await startTestService('sqlite', { TRAWL_ALLOW_PRIVATE_NETWORK: '1', TRAWL_ACCOUNT_CONCURRENCY: '1' });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await wall?.close();
  });

  const runBatch = async (key: string, paths: string[]) => {
    const r = await svc.post('/v1/batch/scrape', { urls: paths.map((p) => `${wall.url}${p}`) }, key);
    expect(r.status).toBe(202);
    const { job_id } = ((await r.json()) as { job: { job_id: string } }).job;
    for (;;) {
      const got = (await (
        await fetch(`${svc.url}/v1/jobs/${job_id}`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as { job: { state: string }; pages: { markdown?: string; error?: string }[] };
      if (!['queued', 'running'].includes(got.job.state)) return got;
      await new Promise((res) => setTimeout(res, 200));
    }
  };

  it('three pages, one challenge; the next job clears on its own', async () => {
    const { key } = await svc.newKey(20);
    const job = await runBatch(key, ['/', '/a', '/b']);
    expect(job.pages).toHaveLength(3);
    for (const p of job.pages) expect(p.markdown).toContain(ARTICLE_TEXT);
    expect(wall.hits(CHALLENGE)).toBe(1);
    const next = await runBatch(key, ['/c']);
    expect(next.pages[0]?.markdown).toContain(ARTICLE_TEXT);
    expect(wall.hits(CHALLENGE)).toBe(2);
  }, 120_000);
});
