/**
 * Async crawls read their pages as a synchronous crawl does: `timeout_ms` bounds each page's
 * fetch, and a start URL that redirects to another site moves the crawl there (its links are
 * followed on the site it landed on), the caller's headers and cookies never following it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';

describe.each(DIALECTS)('jobs: async crawl page budget and a moved start (%s)', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  let moved: FixtureServer;
  const seen: { host: string; path: string; headers: IncomingHttpHeaders }[] = [];
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
    // Two sites on one server, told apart by the Host header: old.test moved to new.test.
    const links = (hrefs: string[]) => hrefs.map((h) => `<a href="${h}">${h}</a>`).join(' ');
    const sites: Record<string, Record<string, string>> = {
      'old.test': { '/n/1': articlePage('Old 1', '<p>A page of the old site that nobody should crawl now.</p>') },
      'new.test': {
        '/': articlePage(
          'New home',
          `<p>The home page of the site the old one moved to.</p>${links(['/n/1', '/n/2'])}`,
        ),
        '/n/1': articlePage('New 1', `<p>The first page of the new site, linking deeper.</p>${links(['/n/3'])}`),
        '/n/2': articlePage('New 2', '<p>The second page of the new site, with words enough to be content.</p>'),
        '/n/3': articlePage('New 3', '<p>A page two links below the new home, with words enough.</p>'),
      },
    };
    moved = await startFixtureServer();
    moved.route('/robots.txt', (_q, res) => void res.writeHead(404).end());
    moved.route('/sitemap.xml', (_q, res) => void res.writeHead(404).end());
    for (const path of ['/', '/n/1', '/n/2', '/n/3'])
      moved.route(path, (req, res) => {
        const host = (req.headers.host ?? '').split(':')[0];
        seen.push({ host, path, headers: req.headers });
        if (host === 'old.test' && path === '/')
          return void res.writeHead(301, { location: `http://new.test:${moved.port}/` }).end();
        const body = sites[host]?.[path];
        if (!body) return void res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      });
    const pins = ['old.test', 'new.test'].map((h) => `${h}=127.0.0.1:${moved.port}`).join(',');
    svc = await startTestService(dialect, { TRAWL_RESOLVE: pins });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    await moved?.close();
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
    const made = await call('POST', '/v1/crawl', key, {
      url: `${site.url}/`,
      async: true,
      max_depth: 1,
      use_sitemap: false,
      timeout_ms: 1000,
    });
    expect(made.status).toBe(202);
    const done = await finished(key, made.body.job.job_id);
    // /slow answers 200 after 4 s: unbounded, it would be a page like /quick. Its timeout is the bound.
    expect(done.job.state).toBe('completed');
    const byPath = Object.fromEntries(done.pages.map((p: any) => [new URL(p.url).pathname, p]));
    expect(byPath['/quick']).toMatchObject({ depth: 1, status_code: 200, title: 'Quick' });
    expect(byPath['/slow']).toMatchObject({ url: `${site.url}/slow`, depth: 1, error: 'timeout' });
  }, 30_000);

  for (const [name, extra] of [
    ['over HTTP', {}],
    [
      'with headers and cookies (read as scrape reads)',
      { headers: { 'X-Token': 'secret' }, cookies: [{ name: 'sid', value: 'c1' }] },
    ],
  ] as const)
    it(`a start URL redirecting to another site moves the crawl there, ${name}`, async () => {
      const { key } = await svc.newKey(5);
      seen.length = 0;
      const made = await call('POST', '/v1/crawl', key, {
        url: `http://old.test:${moved.port}/`,
        async: true,
        max_depth: 2,
        ...extra,
      });
      expect(made.status, JSON.stringify(made.body)).toBe(202);
      const done = await finished(key, made.body.job.job_id);
      expect(done.job.state).toBe('completed');
      const at = `http://new.test:${moved.port}`;
      expect(done.pages.filter((p: any) => p.error)).toEqual([]);
      expect(done.pages.map((p: any) => [p.url, p.depth]).sort()).toEqual([
        [`${at}/`, 0],
        [`${at}/n/1`, 1],
        [`${at}/n/2`, 1],
        [`${at}/n/3`, 2],
      ]);
      expect(done.job.progress).toMatchObject({ done: 4, failed: 0 });
      // The caller's headers and cookies were for the start URL's site, never the one it moved to.
      const onNew = seen.filter((r) => r.host === 'new.test');
      expect(onNew.length).toBeGreaterThanOrEqual(4);
      for (const r of onNew) {
        expect(r.headers['x-token'], r.path).toBeUndefined();
        expect(r.headers.cookie, r.path).toBeUndefined();
      }
      if ('headers' in extra) expect(seen.find((r) => r.host === 'old.test')?.headers['x-token']).toBe('secret');
    }, 30_000);
});
