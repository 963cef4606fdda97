/**
 * Browser-grade options on crawls (contract section 9: "the scrape options inside crawl"), in real
 * Chromium on a local site: an async crawl job with a screenshot of each page, headers that reach
 * the site's pages and never a third-party host (a linked page, an image, a redirect off the
 * site), actions on every page, the result cache, and the synchronous crawl taking the same
 * options. The site is reached under public-looking names pinned with TRAWL_RESOLVE.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const chromium = findChromium();
const pngSize = (b: Buffer) => ({ width: b.readUInt32BE(16), height: b.readUInt32BE(20) });
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

/** A page of the site: its links, an image from a third-party host, and a button that reveals a line. */
const page = (title: string, links: string[]) =>
  `<!doctype html><html><head><title>${title}</title><meta name="viewport" content="width=device-width"></head><body><main><h1>${title}</h1>
<p>${title} is a page of the harbour site, with enough words to be read as its main content.</p>
${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}
<img src="http://third.test/pixel.png">
<button id="more" onclick="document.getElementById('extra').hidden = false">More</button>
<p id="extra" hidden>Revealed line of ${title}: the button shows this paragraph, which the crawl reads after its click.</p>
</main></body></html>`;

describe.skipIf(!chromium)('browser-grade options on crawls (real Chromium)', () => {
  let site: FixtureServer;
  let svc: TestService;
  const seen: { host: string; path: string; headers: IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    const record =
      (body: string | Buffer, type = 'text/html; charset=utf-8') =>
      (req: import('node:http').IncomingMessage, res: ServerResponse) => {
        seen.push({ host: req.headers.host ?? '', path: (req.url ?? '').split('?')[0], headers: req.headers });
        res.writeHead(200, { 'content-type': type }).end(body);
      };
    site = await startFixtureServer({
      '/': record(page('Home', ['/a', '/b', '/away', 'http://third.test/elsewhere'])),
      '/a': record(page('Page A', ['/'])),
      '/b': record(page('Page B', ['/a'])),
      '/elsewhere': record(page('Elsewhere', ['/elsewhere-2'])),
      '/elsewhere-2': record(page('Elsewhere 2', [])),
      '/pixel.png': record(PIXEL, 'image/png'),
      '/robots.txt': record('User-agent: *\nAllow: /\n', 'text/plain'),
      '/sitemap.xml': (_q, res) => void res.writeHead(404).end(),
      // A page of the site that redirects off it: the headers must not follow.
      '/away': (req, res) => {
        seen.push({ host: req.headers.host ?? '', path: '/away', headers: req.headers });
        res.writeHead(302, { location: 'http://third.test/elsewhere' }).end();
      },
    });
    const pins = ['www.harbour.test', 'third.test'].map((h) => `${h}=127.0.0.1:${site.port}`).join(',');
    svc = await startTestService('sqlite', { TRAWL_ALLOW_PRIVATE_NETWORK: '0', TRAWL_RESOLVE: pins });
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
  const waitForJob = async (key: string, id: string) => {
    let job: any;
    for (let i = 0; i < 400 && !['completed', 'failed', 'cancelled'].includes(job?.job?.state); i++) {
      await new Promise((r) => setTimeout(r, 150));
      job = (await call('GET', `/v1/jobs/${id}`, key)).body;
    }
    return job;
  };

  it('async crawl: a screenshot of each page (its URL readable), actions on each, headers to the site only', async () => {
    const { key } = await svc.newKey(5);
    seen.length = 0;
    const created = await call('POST', '/v1/crawl', key, {
      url: 'http://www.harbour.test/',
      async: true,
      limit: 10,
      formats: ['markdown', 'screenshot'],
      viewport: { width: 640, height: 480 },
      headers: { 'X-Crawl-Token': 'crawl-secret' },
      actions: [{ type: 'click', selector: '#more' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const job = await waitForJob(key, created.body.job.job_id);
    expect(job.job.state).toBe('completed');
    const ok = job.pages.filter((p: any) => !p.error);
    expect(ok.map((p: any) => new URL(p.url).pathname).sort()).toEqual(['/', '/a', '/b']);
    for (const p of ok) {
      expect(p.markdown).toContain(`Revealed line of ${p.title}:`);
      expect(p.screenshot).toMatch(new RegExp(`^${svc.url}/v1/files/[0-9A-Za-z]{32}\\.png$`));
      const shot = await fetch(p.screenshot);
      expect(shot.status).toBe(200);
      expect(pngSize(Buffer.from(await shot.arrayBuffer()))).toEqual({ width: 640, height: 480 });
    }
    // The redirect off the site fails that page, as any crawl's.
    expect(job.pages.find((p: any) => p.error)).toMatchObject({
      url: 'http://www.harbour.test/away',
      error: 'off_site_redirect',
    });
    // Every request to the site's pages carried the header; none to the third-party host did.
    const site_ = seen.filter((s) => s.host.startsWith('www.harbour.test') && s.path !== '/robots.txt');
    expect(site_.map((s) => s.path)).toEqual(expect.arrayContaining(['/', '/a', '/b', '/away']));
    for (const s of site_) expect(s.headers['x-crawl-token'], `${s.host}${s.path}`).toBe('crawl-secret');
    const third = seen.filter((s) => s.host.startsWith('third.test'));
    expect(third.map((s) => s.path)).toContain('/pixel.png');
    for (const s of third) expect(s.headers['x-crawl-token'], `${s.host}${s.path}`).toBeUndefined();
  }, 90_000);

  it('a start URL that redirects to another site moves the crawl, but not the headers and cookies', async () => {
    const { key } = await svc.newKey(10);
    const off = () => seen.filter((s) => s.host.startsWith('third.test') && s.path.startsWith('/elsewhere'));
    const given = { headers: { 'X-Crawl-Token': 'crawl-secret' }, cookies: [{ name: 'sid', value: 'cookie-secret' }] };
    seen.length = 0;
    const sync = await call('POST', '/v1/crawl', key, { url: 'http://www.harbour.test/away', limit: 3, ...given });
    expect(sync.status, JSON.stringify(sync.body)).toBe(200);
    expect(sync.body.pages.map((p: any) => new URL(p.url).pathname)).toEqual(['/elsewhere', '/elsewhere-2']);
    const created = await call('POST', '/v1/crawl', key, {
      url: 'http://www.harbour.test/away',
      async: true,
      limit: 3,
      ...given,
    });
    const job = await waitForJob(key, created.body.job.job_id);
    expect(job.pages[0]).toMatchObject({ url: 'http://third.test/elsewhere', title: 'Elsewhere' });
    expect(off().length).toBeGreaterThanOrEqual(3);
    for (const s of off()) {
      expect(s.headers['x-crawl-token'], s.path).toBeUndefined();
      expect(s.headers.cookie, s.path).toBeUndefined();
    }
  }, 90_000);

  it('sync crawl: the same options; max_age answers the second crawl from the cache', async () => {
    const { key } = await svc.newKey(5);
    const body = {
      url: 'http://www.harbour.test/',
      max_depth: 1,
      limit: 3,
      formats: ['markdown', 'screenshot@full_page'],
      mobile: true,
      max_age: 600_000,
    };
    const first = await call('POST', '/v1/crawl', key, body);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.pages.map((p: any) => new URL(p.url).pathname)).toEqual(['/', '/a', '/b']);
    for (const p of first.body.pages) {
      expect(p.cache).toBe('miss');
      const shot = Buffer.from(await (await fetch(p.screenshot)).arrayBuffer());
      expect(pngSize(shot).width).toBe(412);
    }
    seen.length = 0;
    const second = await call('POST', '/v1/crawl', key, body);
    expect(second.body.pages.map((p: any) => p.cache)).toEqual(['hit', 'hit', 'hit']);
    expect(second.body.pages.map((p: any) => p.screenshot)).toEqual(first.body.pages.map((p: any) => p.screenshot));
    expect(seen.filter((s) => ['/', '/a', '/b'].includes(s.path))).toEqual([]);
  }, 90_000);

  it('a step that cannot be done fails that page (action_failed); a crawl with no page read ends failed', async () => {
    const { key } = await svc.newKey(5);
    const created = await call('POST', '/v1/crawl', key, {
      url: 'http://www.harbour.test/',
      async: true,
      max_depth: 0,
      actions: [{ type: 'click', selector: '#not-there' }],
    });
    expect(created.status).toBe(202);
    const job = await waitForJob(key, created.body.job.job_id);
    expect(job.job).toMatchObject({ state: 'failed', progress: { done: 0, failed: 1, queued: 0 } });
    expect(job.pages[0]).toMatchObject({ url: 'http://www.harbour.test/', depth: 0, error: 'action_failed' });
    expect(job.pages[0].detail).toMatch(/^actions\[0\]: no element matches '#not-there'/);
  }, 60_000);

  it('refuses what cannot work before anything is charged', async () => {
    const { key, accountId } = await svc.newKey(2);
    const bad = await call('POST', '/v1/crawl', key, {
      url: 'http://www.harbour.test/',
      formats: ['screenshot'],
      render: 'http',
    });
    expect(bad).toEqual({
      status: 400,
      body: {
        error: 'invalid_request',
        detail: 'render: screenshots and actions need the browser; leave render out or set it to "browser"',
      },
    });
    const cookie = await call('POST', '/v1/crawl', key, {
      url: 'http://www.harbour.test/',
      async: true,
      cookies: [{ name: 'a', value: 'b', domain: 'third.test' }],
    });
    expect(cookie.status).toBe(400);
    expect(cookie.body.detail).toMatch(/^cookies\[0\]\.domain: "third.test" is not on the target's site/);
    expect(await svc.credits(accountId)).toBe(2);
  });
});
