/** The dashboard's jobs page: the account's jobs with progress, each one's pages as a JSON-lines download; another account's is 404. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, keys } from '../../src/store/index.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';

describe.each(DIALECTS)('dashboard jobs (%s)', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer();
    for (let i = 0; i < 3; i++)
      site.route(`/d/${i}`, articlePage(`D${i}`, `<p>Downloadable page ${i}, with words enough to be content.</p>`));
    svc = await startTestService(dialect, { TRAWL_SIGNUP_CREDITS: '5' });
  }, 60_000);
  afterAll(async () => {
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

  it('lists jobs with their progress and streams a job’s pages as JSON lines', async () => {
    const a = await signup('jobs-a@example.com');
    const b = await signup('jobs-b@example.com');
    const created = await fetch(`${svc.url}/v1/batch/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: [0, 1, 2].map((i) => `${site.url}/d/${i}`) }),
    });
    const id = ((await created.json()) as any).job.job_id as string;
    for (let i = 0; i < 100; i++) {
      const j = (await (
        await fetch(`${svc.url}/v1/jobs/${id}?limit=1`, { headers: { authorization: `Bearer ${a.key}` } })
      ).json()) as any;
      if (j.job.state === 'completed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const page = await (await fetch(`${svc.url}/jobs`, { headers: { cookie: a.cookie } })).text();
    expect(page).toContain(id);
    expect(page).toMatch(/3 done, 0 failed of 3/);
    const dl = await fetch(`${svc.url}/jobs/${id}/pages.jsonl`, { headers: { cookie: a.cookie } });
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await dl.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.url).sort()).toEqual([0, 1, 2].map((i) => `${site.url}/d/${i}`));
    expect((await fetch(`${svc.url}/jobs/${id}/pages.jsonl`, { headers: { cookie: b.cookie } })).status).toBe(404);
    // Not a job id at all (a NUL byte PostgreSQL would refuse): 404 too, not a 500.
    expect((await fetch(`${svc.url}/jobs/%00/pages.jsonl`, { headers: { cookie: a.cookie } })).status).toBe(404);
    expect(await (await fetch(`${svc.url}/jobs`, { headers: { cookie: b.cookie } })).text()).not.toContain(id);
  });
});
