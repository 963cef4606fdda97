/**
 * The Jobs page refreshes itself while a job runs (issue 43): a batch whose second page the
 * site holds back shows "1 done" and, once the page is let go, "2 done" in the same document
 * (no reload), under the page's own CSP; the asking stops when nothing runs. The newest job is
 * shown read as curl, TypeScript and Python.
 */
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGS } from '../../src/engine/fetch/chromium-launch.js';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { accounts, keys } from '../../src/store/index.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { jobClient } from '../helpers/job-client.js';
import { startTestService, type TestService } from '../helpers/service.js';

const chromiumPath = findChromium(process.env.CHROMIUM_PATH);

describe('the Jobs page while a job runs', () => {
  let svc: TestService;
  let site: FixtureServer;
  let release: () => void = () => {};
  let held = new Promise<void>((r) => (release = r));
  beforeAll(async () => {
    site = await startFixtureServer({
      '/quick': articlePage('Quick', '<p>A page answered at once, with words enough to be content.</p>'),
      '/held': async (_q, res) => {
        await held;
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(articlePage('Held', '<p>A page answered once the test lets it go, with words.</p>'));
      },
    });
    svc = await startTestService('sqlite', { TRAWL_SIGNUP_CREDITS: '5' });
  }, 60_000);
  afterAll(async () => {
    release();
    await svc?.stop();
    await site?.close();
  });

  const signup = async (email: string) => {
    const body = `email=${encodeURIComponent(email)}&password=longenough1`;
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    await fetch(`${svc.url}/signup`, { method: 'POST', redirect: 'manual', headers, body });
    const res = await fetch(`${svc.url}/login`, { method: 'POST', redirect: 'manual', headers, body });
    const acc = (await accounts.findAccountByEmail(svc.store.db, email))!;
    const { key } = await keys.createApiKey(svc.store.db, { accountId: acc.id });
    return { cookie: res.headers.get('set-cookie')!.split(';')[0], key };
  };

  /** A batch of the quick page and the held one, waited for until the quick one is done. */
  const halfDoneBatch = async (key: string) => {
    const jobs = jobClient(svc.url, key);
    const id = (await jobs.call('POST', '/v1/batch/scrape', { urls: [`${site.url}/quick`, `${site.url}/held`] })).job
      .job_id as string;
    for (;;) {
      const job = (await jobs.call('GET', `/v1/jobs/${id}?limit=1`)).job;
      if (job.progress.done === 1) return { id, jobs };
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('marks the list live, serves fresh rows, and shows the job read in code', async () => {
    const a = await signup('live-a@example.com');
    const { id, jobs } = await halfDoneBatch(a.key);
    const page = await (await fetch(`${svc.url}/jobs`, { headers: { cookie: a.cookie } })).text();
    expect(page).toContain('data-live="/jobs/rows.json"');
    expect(page).toMatch(/1 done, 0 failed of 2/);
    expect(page).toContain(`Read job ${id}`);
    expect(page).toContain(`curl -s ${svc.url}/v1/jobs/${id}`);
    expect(page).toContain(`await fetch(&quot;${svc.url}/v1/jobs/${id}&quot;`);
    expect(page).toContain('requests.get(');
    expect(page).not.toContain(a.key);
    const rows = await fetch(`${svc.url}/jobs/rows.json`, { headers: { cookie: a.cookie } });
    expect(rows.headers.get('content-type')).toContain('application/json');
    const fresh = (await rows.json()) as { rows: string; live: boolean };
    expect(fresh.live).toBe(true);
    expect(fresh.rows).toContain(`data-job="${id}"`);
    // Another account sees none of it; no session, no rows.
    const b = await signup('live-b@example.com');
    const other = (await (await fetch(`${svc.url}/jobs/rows.json`, { headers: { cookie: b.cookie } })).json()) as {
      rows: string;
      live: boolean;
    };
    expect(other).toEqual({ rows: '', live: false });
    const anon = await fetch(`${svc.url}/jobs/rows.json`, { redirect: 'manual' });
    expect(anon.status).toBe(303);

    release();
    expect((await jobs.finished(id, 60_000)).state).toBe('completed');
    const after = (await (await fetch(`${svc.url}/jobs/rows.json`, { headers: { cookie: a.cookie } })).json()) as {
      rows: string;
      live: boolean;
    };
    expect(after.live).toBe(false);
    expect(after.rows).toMatch(/2 done, 0 failed of 2/);
    const done = await (await fetch(`${svc.url}/jobs`, { headers: { cookie: a.cookie } })).text();
    expect(done).not.toContain('data-live');
  });

  it.skipIf(!chromiumPath)(
    'updates the progress in place in Chromium under the page’s CSP',
    async () => {
      held = new Promise<void>((r) => (release = r));
      const browser = await chromium.launch({ executablePath: chromiumPath!, headless: true, args: ARGS });
      try {
        const c = await signup('live-c@example.com');
        const { id } = await halfDoneBatch(c.key);
        const context = await browser.newContext();
        await context.addCookies([{ name: c.cookie.split('=')[0], value: c.cookie.split('=')[1], url: svc.url }]);
        const p = await context.newPage();
        const errors: string[] = [];
        p.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
        let loads = 0;
        p.on('load', () => loads++);
        await p.goto(`${svc.url}/jobs`);
        const row = `tr[data-job="${id}"]`;
        expect(await p.textContent(row)).toMatch(/1 done, 0 failed of 2/);
        // A mark on the document: a reload would lose it.
        await p.evaluate(() => ((window as unknown as { mark: number }).mark = 1));
        release();
        await p.waitForFunction(
          (sel) => /2 done, 0 failed of 2/.test(document.querySelector(sel)?.textContent ?? ''),
          row,
          { timeout: 60_000 },
        );
        expect(await p.evaluate(() => (window as unknown as { mark?: number }).mark)).toBe(1);
        expect(loads).toBe(1);
        expect(await p.textContent(row)).toContain('completed');
        // Nothing runs any more: the table is no longer live (the asking stopped).
        await p.waitForFunction(() => !document.querySelector('table[data-live]'), undefined, { timeout: 30_000 });
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    120_000,
  );
});
