/**
 * The synchronous POST /v1/crawl runs on the job machinery (the store's frontier, the job
 * runners): its answer is the job's pages in breadth-first order, the job stays listed and
 * readable, the page limit and the crawl's time budget say `truncated`, and a caller who goes
 * away cancels it. On both stores.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';

const links = (hrefs: string[]) => hrefs.map((h) => `<a href="${h}">${h}</a>`).join(' ');
const words = (t: string) => `<p>${t} is a page of this small site, with words enough to be read as content.</p>`;

describe.each(DIALECTS)('sync crawl as a job (%s)', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  let slowHits = 0;
  beforeAll(async () => {
    site = await startFixtureServer({
      '/': articlePage('Home', words('Home') + links(['/a', '/b', '/c'])),
      '/a': articlePage('A', words('A') + links(['/a/1', '/a/2'])),
      '/b': articlePage('B', words('B') + links(['/b/1'])),
      '/c': articlePage('C', words('C')),
      '/a/1': articlePage('A1', words('A1')),
      '/a/2': articlePage('A2', words('A2')),
      '/b/1': articlePage('B1', words('B1')),
      '/slow-home': articlePage('Slow home', words('Slow home') + links(['/quick', '/slow'])),
      '/quick': articlePage('Quick', words('Quick')),
      '/slow': async (_q, res) => {
        slowHits++;
        await new Promise((r) => setTimeout(r, 5000));
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/html' }).end(articlePage('Slow', words('Slow')));
      },
    });
    svc = await startTestService(dialect);
  });
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  const get = async (path: string, key: string) =>
    (await fetch(`${svc.url}${path}`, { headers: { authorization: `Bearer ${key}` } })).json();

  it('answers breadth-first from a job that stays listed, its pages readable', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post('/v1/crawl', { url: `${site.url}/`, max_depth: 2, limit: 50 }, key);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.pages.map((p: { url: string }) => new URL(p.url).pathname)).toEqual([
      '/',
      '/a',
      '/b',
      '/c',
      '/a/1',
      '/a/2',
      '/b/1',
    ]);
    expect(body.pages.map((p: { depth: number }) => p.depth)).toEqual([0, 1, 1, 1, 2, 2, 2]);
    expect(body).toMatchObject({ total: 7, truncated: false, errors: [] });
    expect(await svc.credits(accountId)).toBe(4);
    const list = await get('/v1/jobs', key);
    expect(list.jobs).toHaveLength(1);
    expect(list.jobs[0]).toMatchObject({ kind: 'crawl', state: 'completed', progress: { done: 7, failed: 0 } });
    const job = await get(`/v1/jobs/${list.jobs[0].job_id}`, key);
    expect(job.pages.map((p: { url: string }) => p.url).sort()).toEqual(
      body.pages.map((p: { url: string }) => p.url).sort(),
    );
  });

  it('says truncated when the limit left links unfetched, and not when the site fits exactly', async () => {
    const { key } = await svc.newKey(5);
    const cut = await (await svc.post('/v1/crawl', { url: `${site.url}/`, max_depth: 2, limit: 3 }, key)).json();
    expect(cut).toMatchObject({ total: 3, truncated: true });
    const exact = await (await svc.post('/v1/crawl', { url: `${site.url}/`, max_depth: 2, limit: 7 }, key)).json();
    expect(exact).toMatchObject({ total: 7, truncated: false });
  });

  it('answers within its time budget with the pages done, truncated', async () => {
    const { key } = await svc.newKey(5);
    const res = await svc.post('/v1/crawl', { url: `${site.url}/slow-home`, max_depth: 1, timeout_ms: 2000 }, key);
    expect(res.status).toBe(200);
    const body = await res.json();
    // Answered at the budget: the slow pages left out, the job cancelled (waiting for them, it
    // would list them and not be truncated).
    expect(body.truncated).toBe(true);
    expect(body.pages.map((p: { url: string }) => new URL(p.url).pathname).sort()).toEqual(['/quick', '/slow-home']);
    const list = await get('/v1/jobs', key);
    expect(list.jobs[0].state).toBe('cancelled');
  });

  it('a start page that outlives the whole budget fails the crawl 504 timeout, not charged', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post('/v1/crawl', { url: `${site.url}/slow`, max_depth: 0, timeout_ms: 1000 }, key);
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ error: 'timeout', detail: expect.any(String) });
    expect(await svc.credits(accountId)).toBe(5);
  });

  it('a caller who hangs up once pages are done cannot read them for nothing', async () => {
    const { key, accountId } = await svc.newKey(5);
    const ac = new AbortController();
    const agent = new Agent();
    const req = undiciFetch(`${svc.url}/v1/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ url: `${site.url}/slow-home`, max_depth: 1, timeout_ms: 20_000 }),
      signal: ac.signal,
      dispatcher: agent,
    }).catch(() => undefined);
    // The start page and /quick are done; /slow is in flight.
    await expect.poll(async () => (await get('/v1/jobs', key)).jobs[0]?.progress.done, { timeout: 5000 }).toBe(2);
    const id = (await get('/v1/jobs', key)).jobs[0].job_id;
    ac.abort();
    await req;
    await agent.destroy();
    await expect.poll(async () => (await get(`/v1/jobs/${id}`, key)).job.state, { timeout: 5000 }).toBe('cancelled');
    await expect.poll(() => svc.credits(accountId), { timeout: 5000 }).toBe(5);
    const job = await get(`/v1/jobs/${id}`, key);
    expect(job.pages).toEqual([]);
    expect(job.next_cursor).toBeNull();
    expect(job.job.error).toMatch(/hung up/);
  });

  it('pages of a running synchronous crawl are not readable from the jobs API until its answer is charged', async () => {
    const { key, accountId } = await svc.newKey(5);
    const answer = svc.post('/v1/crawl', { url: `${site.url}/slow-home`, max_depth: 1, timeout_ms: 20_000 }, key);
    // The start page and /quick are done; /slow is in flight: the job's pages are in the store.
    await expect.poll(async () => (await get('/v1/jobs', key)).jobs[0]?.progress.done, { timeout: 5000 }).toBe(2);
    const id = (await get('/v1/jobs', key)).jobs[0].job_id;
    const early = await get(`/v1/jobs/${id}`, key);
    expect(early.pages).toEqual([]);
    // Still worth polling: the pages come once the answer is paid for.
    expect(early.next_cursor).toEqual(expect.any(String));
    const res = await answer;
    expect(res.status).toBe(200);
    expect(await svc.credits(accountId)).toBe(4);
    const after = await get(`/v1/jobs/${id}?cursor=${early.next_cursor}`, key);
    expect(after.pages.map((p: { url: string }) => new URL(p.url).pathname).sort()).toEqual([
      '/quick',
      '/slow',
      '/slow-home',
    ]);
  });

  it('a caller who goes away cancels the job, and is not charged', async () => {
    const { key, accountId } = await svc.newKey(5);
    const before = slowHits;
    const ac = new AbortController();
    // Its own connection pool, closed after: the global one may keep the aborted socket half-open,
    // and the service's close then waits for it.
    const agent = new Agent();
    const req = undiciFetch(`${svc.url}/v1/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ url: `${site.url}/slow`, max_depth: 0, timeout_ms: 20_000 }),
      signal: ac.signal,
      dispatcher: agent,
    }).catch(() => undefined);
    await expect.poll(() => slowHits, { timeout: 5000 }).toBeGreaterThan(before);
    ac.abort();
    await req;
    await agent.destroy();
    await expect.poll(async () => (await get('/v1/jobs', key)).jobs[0]?.state, { timeout: 5000 }).toBe('cancelled');
    await expect.poll(() => svc.credits(accountId), { timeout: 5000 }).toBe(5);
  });
});
