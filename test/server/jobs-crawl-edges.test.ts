/**
 * Async crawls read their pages as a synchronous crawl does: `timeout_ms` bounds each page's
 * fetch, and a start URL that redirects to another site moves the crawl there (its links are
 * followed on the site it landed on), the caller's headers and cookies never following it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('jobs: async crawl page budget and a moved start (sqlite)', () => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer();
    site.route(
      '/',
      articlePage(
        'Home',
        '<p>A home page linking to a page that takes its time to answer.</p><a href="/slow">Slow</a> <a href="/quick">Quick</a>',
      ),
    );
    site.route('/quick', articlePage('Quick', '<p>A page that answers at once, with words enough to be content.</p>'));
    site.route('/slow', async (_q, res) => {
      await new Promise((r) => setTimeout(r, 4000));
      if (!res.destroyed)
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(articlePage('Slow', '<p>A page that takes its time, with words enough to be content.</p>'));
    });
    svc = await startTestService('sqlite');
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
  const finished = async (key: string, id: string) => {
    const end = Date.now() + 30_000;
    for (;;) {
      const r = await call('GET', `/v1/jobs/${id}`, key);
      if (r.body.job.state !== 'queued' && r.body.job.state !== 'running') return r.body;
      if (Date.now() > end) throw new Error(`job still ${r.body.job.state}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  };

  it('timeout_ms bounds each page of an async crawl, as it does a synchronous crawl', async () => {
    const { key } = await svc.newKey(5);
    const t0 = Date.now();
    const made = await call('POST', '/v1/crawl', key, {
      url: `${site.url}/`,
      async: true,
      max_depth: 1,
      use_sitemap: false,
      timeout_ms: 1000,
    });
    expect(made.status).toBe(202);
    const done = await finished(key, made.body.job.job_id);
    expect(Date.now() - t0).toBeLessThan(3500);
    expect(done.job.state).toBe('completed');
    const byPath = Object.fromEntries(done.pages.map((p: any) => [new URL(p.url).pathname, p]));
    expect(byPath['/quick']).toMatchObject({ depth: 1, status_code: 200, title: 'Quick' });
    expect(byPath['/slow']).toMatchObject({ url: `${site.url}/slow`, depth: 1, error: 'timeout' });
  }, 30_000);
});
