/**
 * Async crawl as a job, on both stores: the frontier and the seen set live in the store, pages are
 * written as they finish and read back by cursor; each URL once, depth and limit held, robots.txt
 * honoured, sitemaps joined at depth 1; synchronous crawls keep their 1,000-page bound.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';

describe.each(DIALECTS)('jobs: async crawl (%s)', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer();
    const links = (hrefs: string[]) => hrefs.map((h) => `<a href="${h}">${h}</a>`).join(' ');
    site.route(
      '/',
      articlePage(
        'Home',
        `<p>The home page of a small site, with links to its sections below.</p>${links([...Array.from({ length: 6 }, (_, i) => `/s/${i}`), '/private/x', 'http://elsewhere.test/', '/file.pdf', '/s/0#again'])}`,
      ),
    );
    for (let i = 0; i < 6; i++)
      site.route(
        `/s/${i}`,
        articlePage(
          `Section ${i}`,
          `<p>Section ${i} of the site, which links to two deeper pages of its own.</p>${links([`/s/${i}/a`, `/s/${i}/b`, '/'])}`,
        ),
      );
    for (let i = 0; i < 6; i++)
      for (const x of ['a', 'b'])
        site.route(
          `/s/${i}/${x}`,
          articlePage(
            `Deep ${i}${x}`,
            `<p>A deep page, ${i}${x}, two links below the home page.</p>${links([`/s/${i}/${x}/deeper`])}`,
          ),
        );
    site.route('/private/x', articlePage('Private', '<p>Robots keep crawlers out of here.</p>'));
    site.route(
      '/robots.txt',
      (_q, res) =>
        void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n'),
    );
    site.route(
      '/sitemap.xml',
      (_q, res) =>
        void res
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(
            `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.url}/from-sitemap</loc></url></urlset>`,
          ),
    );
    site.route(
      '/from-sitemap',
      articlePage('From the sitemap', '<p>A page only the sitemap lists, with words enough to be content.</p>'),
    );
    svc = await startTestService(dialect);
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
      const r = await call('GET', `/v1/jobs/${id}?limit=1`, key);
      if (r.body.job.state !== 'queued' && r.body.job.state !== 'running') return r.body.job;
      if (Date.now() > end) throw new Error(`job still ${r.body.job.state}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  };
  const allPages = async (key: string, id: string) => {
    const pages: any[] = [];
    let cursor: string | null = null;
    do {
      const r: { body: any } = await call('GET', `/v1/jobs/${id}?limit=7${cursor ? `&cursor=${cursor}` : ''}`, key);
      pages.push(...r.body.pages);
      cursor = r.body.next_cursor;
    } while (cursor);
    return pages;
  };

  it('crawls to depth 2: each URL once, robots and off-site links left out, sitemap pages at depth 1', async () => {
    const { key, accountId } = await svc.newKey(5);
    const r = await call('POST', '/v1/crawl', key, { url: `${site.url}/`, async: true, max_depth: 2, limit: 5000 });
    expect(r.status).toBe(202);
    expect(r.body.job).toMatchObject({ kind: 'crawl', state: 'queued' });
    expect(await svc.credits(accountId)).toBe(4);
    const job = await finished(key, r.body.job.job_id);
    expect(job.state).toBe('completed');
    const pages = await allPages(key, r.body.job.job_id);
    const ok = pages.filter((p) => !p.error);
    const urls = ok.map((p) => new URL(p.url).pathname).sort();
    expect(urls).toEqual(
      [
        '/',
        '/from-sitemap',
        ...Array.from({ length: 6 }, (_, i) => [`/s/${i}`, `/s/${i}/a`, `/s/${i}/b`]).flat(),
      ].sort(),
    );
    expect(new Set(pages.map((p) => p.url)).size).toBe(pages.length);
    expect(ok.every((p) => p.depth <= 2)).toBe(true);
    expect(ok.find((p) => p.url.endsWith('/from-sitemap')).depth).toBe(1);
    expect(pages.find((p) => p.url.endsWith('/private/x'))).toMatchObject({ error: 'robots_disallowed' });
    expect(job.progress).toEqual({ done: ok.length, failed: pages.length - ok.length, queued: 0 });
    expect(ok.find((p) => p.url.endsWith('/s/3/b')).markdown).toContain('A deep page, 3b');
  });

  it('a redirect target is answered once, however many URLs lead to it (as in a synchronous crawl)', async () => {
    const { key } = await svc.newKey(5);
    const to = (location: string) => (_q: unknown, res: any) => void res.writeHead(301, { location }).end();
    site.route(
      '/rd/',
      articlePage(
        'Redirects',
        `<p>A page whose links mostly redirect to one target page.</p><a href="/rd/a">a</a> <a href="/rd/t">t</a> <a href="/rd/b">b</a> <a href="/rd/c">c</a> <a href="/rd/c/">c/</a>`,
      ),
    );
    site.route('/rd/a', to('/rd/t'));
    site.route('/rd/b', to('/rd/t'));
    site.route('/rd/c', to('/rd/c/'));
    site.route('/rd/t', articlePage('Target', '<p>The page every redirect leads to, with words enough.</p>'));
    site.route('/rd/c/', articlePage('C', '<p>A section reached with or without its slash.</p>'));
    const r = await call('POST', '/v1/crawl', key, {
      url: `${site.url}/rd/`,
      async: true,
      max_depth: 1,
      use_sitemap: false,
    });
    const job = await finished(key, r.body.job.job_id);
    const pages = await allPages(key, r.body.job.job_id);
    expect(pages.map((p) => new URL(p.url).pathname).sort()).toEqual(['/rd/', '/rd/c/', '/rd/t']);
    expect(job.progress).toEqual({ done: 3, failed: 0, queued: 0 });
  });

  it('holds the page limit across the frontier; a synchronous crawl keeps its 1,000 bound', async () => {
    const { key } = await svc.newKey(5);
    const r = await call('POST', '/v1/crawl', key, {
      url: `${site.url}/`,
      async: true,
      max_depth: 3,
      limit: 5,
      use_sitemap: false,
    });
    const job = await finished(key, r.body.job.job_id);
    expect(job.progress.done + job.progress.failed).toBe(5);
    expect(await allPages(key, r.body.job.job_id)).toHaveLength(5);
    const sync = await call('POST', '/v1/crawl', key, { url: `${site.url}/`, limit: 1001 });
    expect(sync).toMatchObject({
      status: 400,
      body: {
        error: 'invalid_request',
        detail: 'limit: must be an integer from 1 to 1000 (up to 100000 with "async": true)',
      },
    });
    expect((await call('POST', '/v1/crawl', key, { url: `${site.url}/`, async: true, limit: 100_001 })).status).toBe(
      400,
    );
  });
});
