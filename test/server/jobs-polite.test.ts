/**
 * Async crawls against hosts that ask for care: a cancel stops the pages waiting for their host's
 * Crawl-delay turn (none fetched a second after it), a redirect off the site is
 * `off_site_redirect` as in a synchronous crawl, and a start URL on a private address is refused
 * when the job is asked for (403, nothing charged).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('jobs: polite and guarded async crawls (sqlite)', () => {
  let svc: TestService;
  let guarded: TestService;
  let site: FixtureServer;
  const fetchedAt: number[] = [];
  beforeAll(async () => {
    site = await startFixtureServer();
    site.route(
      '/robots.txt',
      (_q, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 1\n'),
    );
    site.route(
      '/',
      articlePage(
        'Hub',
        `<p>A hub page linking to the items of a polite site.</p>${Array.from({ length: 12 }, (_, i) => `<a href="/p/${i}">Item ${i}</a>`).join(' ')}<a href="/away">Away</a>`,
      ),
    );
    for (let i = 0; i < 12; i++) {
      site.route(`/p/${i}`, (_q, res) => {
        fetchedAt.push(Date.now());
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(articlePage(`Item ${i}`, `<p>The page of item ${i}, with words enough to be content.</p>`));
      });
    }
    site.route('/away', (_q, res) => void res.writeHead(302, { location: 'http://elsewhere.test/landing' }).end());
    svc = await startTestService('sqlite');
    guarded = await startTestService('sqlite', { TRAWL_ALLOW_PRIVATE_NETWORK: '0' });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await guarded?.stop();
    await site?.close();
  });

  const call = async (s: TestService, method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${s.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('cancel stops pages waiting for their Crawl-delay turn: none fetched a second after it', async () => {
    const { key } = await svc.newKey(5);
    const id = (
      await call(svc, 'POST', '/v1/crawl', key, { url: `${site.url}/`, async: true, max_depth: 1, use_sitemap: false })
    ).body.job.job_id;
    // The hub and two items (a second apart): the other items wait for their turns.
    while (fetchedAt.length < 2) await new Promise((r) => setTimeout(r, 50));
    const cancelled = await call(svc, 'DELETE', `/v1/jobs/${id}`, key);
    const at = Date.now();
    expect(cancelled.body.job.state).toBe('cancelled');
    await new Promise((r) => setTimeout(r, 4000));
    expect(fetchedAt.filter((t) => t > at + 1000)).toEqual([]);
    expect(fetchedAt.length).toBeLessThan(6);
  }, 20_000);

  it('a page redirecting off the site ends as off_site_redirect', async () => {
    const { key } = await svc.newKey(5);
    // (The start page may move, example.com → www.example.com; a page it links to may not.)
    const hub = (
      await call(svc, 'POST', '/v1/crawl', key, {
        url: `${site.url}/`,
        async: true,
        max_depth: 1,
        use_sitemap: false,
        respect_robots: false,
        include_paths: ['/away'],
      })
    ).body.job.job_id;
    for (let i = 0; i < 100 && (await call(svc, 'GET', `/v1/jobs/${hub}`, key)).body.job.state !== 'completed'; i++)
      await new Promise((r) => setTimeout(r, 100));
    const pages = (await call(svc, 'GET', `/v1/jobs/${hub}`, key)).body.pages;
    expect(pages.find((p: any) => p.url.endsWith('/away'))).toEqual({
      url: `${site.url}/away`,
      depth: 1,
      error: 'off_site_redirect',
      detail: 'redirected off the site to http://elsewhere.test/landing',
    });
  }, 20_000);

  it('a start URL on a private address is 403 forbidden_target when asked for, and costs nothing', async () => {
    const { key, accountId } = await guarded.newKey(5);
    const r = await call(guarded, 'POST', '/v1/crawl', key, { url: `${site.url}/`, async: true });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: 'forbidden_target', detail: expect.stringContaining('loopback address') });
    expect(await guarded.credits(accountId)).toBe(5);
    expect((await call(guarded, 'GET', '/v1/jobs', key)).body.jobs).toEqual([]);
  });
});

describe('jobs: polite batch scrapes (sqlite)', () => {
  let svc: TestService;
  let site: FixtureServer;
  const started: number[] = [];
  let inFlight = 0;
  let most = 0;
  beforeAll(async () => {
    site = await startFixtureServer();
    // A Disallow too: a batch's URLs were named by the caller, so only the Crawl-delay applies.
    site.route(
      '/robots.txt',
      (_q, res) =>
        void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 1\nDisallow: /b/\n'),
    );
    for (let i = 0; i < 4; i++)
      site.route(`/b/${i}`, async (_q, res) => {
        started.push(Date.now());
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 150));
        inFlight--;
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(articlePage(`Batch ${i}`, `<p>The page of batch item ${i}, with words enough to be content.</p>`));
      });
    svc = await startTestService('sqlite');
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('a batch on one host follows its robots.txt Crawl-delay: one request at a time, a second apart', async () => {
    const { key } = await svc.newKey(5);
    const urls = Array.from({ length: 4 }, (_, i) => `${site.url}/b/${i}`);
    const t0 = Date.now();
    const made = await svc.post('/v1/batch/scrape', { urls }, key);
    expect(made.status).toBe(202);
    const id = ((await made.json()) as any).job.job_id;
    let job: any;
    for (let i = 0; i < 200; i++) {
      job = await (await fetch(`${svc.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } })).json();
      if (job.job.state !== 'queued' && job.job.state !== 'running') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job.job).toMatchObject({ state: 'completed', progress: { done: 4, failed: 0 } });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(3000);
    expect(most).toBe(1);
    const at = started.slice().sort((a, b) => a - b);
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(950);
    // robots.txt read once for the job's host.
    expect(site.hits('/robots.txt')).toBe(1);
  }, 30_000);
});
