/**
 * An outside attack (issue 39) found: the crawl redirect rule ("a redirect to a URL another item has in hand is not
 * followed") drops the redirecting item. When the item that has the target in hand sits deeper
 * (at max_depth, so it reads no links), what is reachable through the redirect at a shallower
 * depth is never crawled, and the crawl still reports completed with no error.
 *
 *   /  → /a (slow, 302 → /b), /x
 *   /x → /b          (so /b is queued at depth 2 = max_depth and done before /a answers)
 *   /b → /c          (/c is at depth 2 through / → /a ⇒ /b → /c, inside max_depth 2)
 *
 * Without the delay on /a the same crawl returns /c (4 pages); with it, 3 pages, /c missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('crawl: redirect to a URL in hand loses pages reachable within max_depth', () => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer({
      '/': articlePage(
        'Home',
        '<p>Home page with enough words to be content.</p><a href="/a">A</a> <a href="/x">X</a>',
      ),
      '/x': articlePage('X', '<p>X page with enough words to be content.</p><a href="/b">B</a>'),
      '/b': articlePage('B', '<p>B page with enough words to be content.</p><a href="/c">C</a>'),
      '/c': articlePage('C', '<p>C page with enough words to be content.</p>'),
    });
    site.route('/a', async (_q, res) => {
      await new Promise((r) => setTimeout(r, 1500));
      res.writeHead(302, { location: '/b' }).end();
    });
    svc = await startTestService('sqlite');
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('every page reachable within max_depth is crawled, whatever the timing of a redirect', async () => {
    const { key } = await svc.newKey(10);
    const res = await svc.post('/v1/crawl', { url: `${site.url}/`, max_depth: 2, limit: 50 }, key);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { pages: { url: string }[]; errors: unknown[] };
    const urls = body.pages.map((p) => new URL(p.url).pathname).sort();
    // /c is 2 links from the start through /a's redirect to /b.
    expect(urls).toContain('/c');
  }, 30_000);

  it('a redirect to a page that failed as another item tries it again: what it links is reached', async () => {
    const flaky = await startFixtureServer({
      '/': articlePage(
        'Home',
        '<p>Home page with enough words to be content.</p><a href="/a">A</a> <a href="/x">X</a>',
      ),
      '/x': articlePage('X', '<p>X page with enough words to be content.</p><a href="/b">B</a>'),
      '/c': articlePage('C', '<p>C page with enough words to be content.</p>'),
    });
    let hits = 0;
    flaky.route('/b', (_q, res) => {
      // Not found on its first hit only (a deploy, a cache miss).
      if (hits++ === 0) res.writeHead(404, { 'content-type': 'text/html' }).end('<p>gone for now</p>');
      else
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(articlePage('B', '<p>B page with enough words to be content.</p><a href="/c">C</a>'));
    });
    flaky.route('/a', async (_q, res) => {
      await new Promise((r) => setTimeout(r, 1500));
      res.writeHead(302, { location: '/b' }).end();
    });
    try {
      const { key } = await svc.newKey(10);
      const res = await svc.post('/v1/crawl', { url: `${flaky.url}/`, max_depth: 3, limit: 50 }, key);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { pages: { url: string }[]; errors: { url: string }[] };
      const urls = body.pages.map((p) => new URL(p.url).pathname).sort();
      expect(urls).toContain('/c');
      expect(urls).toContain('/b');
    } finally {
      await flaky.close();
    }
  }, 30_000);
});
