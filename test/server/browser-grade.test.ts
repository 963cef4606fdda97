/**
 * Browser-grade pages (contract section 9) end to end, in real Chromium on local fixture pages:
 * actions, a failing step (422, no credit), screenshots and their files, headers and cookies to the
 * target's own site only, mobile and location, and the guard holding for what actions do. The
 * service runs WITHOUT TRAWL_ALLOW_PRIVATE_NETWORK: the fixture site is reached under public-looking
 * names pinned with TRAWL_RESOLVE (trusted operator configuration), and an "intranet" server on
 * loopback must never see a connection.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { makePdf } from '../helpers/pdf.js';
import { startTestService, type TestService } from '../helpers/service.js';

const chromium = findChromium();
const SECRET = 'INTRANET-7c1e';

/** Width and height of a PNG (its IHDR chunk). */
const pngSize = (b: Buffer) => ({ width: b.readUInt32BE(16), height: b.readUInt32BE(20) });

const ACTIONS_PAGE = `<!doctype html><html><head><title>Actions</title><meta name="viewport" content="width=device-width"></head>
<body style="margin:0">
<main><h1>Actions</h1><p>A page to act on: buttons, a field, keys, a long list.</p>
<button id="more" onclick="document.getElementById('extra').hidden = false">More</button>
<p id="extra" hidden>The hidden paragraph that a click reveals.</p>
<button class="inc" onclick="window.count = (window.count || 0) + 1">+1</button>
<button class="inc" onclick="window.count = (window.count || 0) + 1">+1</button>
<button class="inc" onclick="window.count = (window.count || 0) + 1">+1</button>
<input id="q" oninput="document.getElementById('echo').textContent = this.value">
<p id="echo"></p>
<a id="go-intranet" href="http://127.0.0.1:INTRANET/secret">intranet</a>
<div style="height:4000px">tall</div>
</main>
<script>
  document.addEventListener('keydown', (e) => { if (e.key === 'Enter') document.body.dataset.entered = document.activeElement.id || 'body'; });
  setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'Late paragraph drawn after 300 ms.'; document.querySelector('main').append(p); }, 300);
</script></body></html>`;

const PROBE_PAGE = `<!doctype html><html><head><title>Probe</title><meta name="viewport" content="width=device-width,initial-scale=1"></head>
<body><main><h1>Probe</h1><p id="probe"></p>
<img src="http://cdn.shop.test/pixel.png"><img src="http://third.test/pixel.png">
<script>
  fetch('http://third.test/api').catch(() => {});
  document.getElementById('probe').textContent = JSON.stringify({ tz: Intl.DateTimeFormat().resolvedOptions().timeZone, lang: navigator.language, langs: navigator.languages, width: innerWidth, touch: navigator.maxTouchPoints, ua: navigator.userAgent });
</script></main></body></html>`;

const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

describe.skipIf(!chromium)('browser-grade scrape options (real Chromium)', () => {
  let site: FixtureServer;
  let svc: TestService;
  let intranet: NetServer;
  let intranetPort = 0;
  let intranetConnections = 0;
  /** Request headers seen by the fixture, per `host path`. */
  const seen: { host: string; path: string; headers: IncomingHttpHeaders }[] = [];
  const seenAt = (host: string, path: string) => seen.filter((s) => s.host.startsWith(host) && s.path === path);
  /** Bodies posted to third.test/sink by a page's script. */
  const sunk: string[] = [];

  beforeAll(async () => {
    intranet = createNetServer((s) => {
      intranetConnections++;
      s.on('error', () => undefined);
      s.end(
        `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nAccess-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n<p>${SECRET}</p>`,
      );
    });
    await new Promise<void>((r) => intranet.listen(0, '127.0.0.1', r));
    intranetPort = (intranet.address() as AddressInfo).port;
    const record =
      (body: string | Buffer, type = 'text/html; charset=utf-8') =>
      (req: import('node:http').IncomingMessage, res: ServerResponse) => {
        seen.push({ host: req.headers.host ?? '', path: (req.url ?? '').split('?')[0], headers: req.headers });
        res.writeHead(200, { 'content-type': type }).end(body);
      };
    site = await startFixtureServer({
      '/actions': record(ACTIONS_PAGE.replace('INTRANET', String(intranetPort))),
      '/probe': record(PROBE_PAGE),
      '/pixel.png': record(PIXEL, 'image/png'),
      '/api': record('{}', 'application/json'),
      '/sink': (req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          sunk.push(body);
          res.writeHead(204, { 'access-control-allow-origin': '*' }).end();
        });
      },
      '/article': record(
        '<html><head><title>Article</title></head><body><article><h1>Article</h1><p>Plain words of a plain article, long enough to be its content.</p></article></body></html>',
      ),
      '/tall': record(
        `<html><head><title>Tall</title></head><body style="margin:0"><div style="height:3000px;background:#eee">Tall page</div></body></html>`,
      ),
      '/doc.pdf': record(
        makePdf(['Quarterly report of the kettle works', 'Sales rose in the third quarter.'], 'Kettle report'),
        'application/pdf',
      ),
      '/huge': record(
        `<html><head><title>Huge</title></head><body style="margin:0"><div style="height:20000px">Huge page</div></body></html>`,
      ),
      '/wide': record(
        `<html><head><title>Wide</title></head><body style="margin:0"><div style="width:10000px;height:1000px">Wide page</div></body></html>`,
      ),
      // Another customer of the same hosting platform: another site (the PSL's private section;
      // a .app name would do for HTTP, but Chromium's HSTS preload sends every .app to HTTPS).
      '/to-neighbour': (req, res) => {
        seen.push({ host: req.headers.host ?? '', path: '/to-neighbour', headers: req.headers });
        res.writeHead(302, { location: 'http://attacker.gitbook.io/article' }).end();
      },
      // A redirect off the site: the caller's headers must not follow it.
      '/away': (req, res) => {
        seen.push({ host: req.headers.host ?? '', path: '/away', headers: req.headers });
        res.writeHead(302, { location: 'http://third.test/article' }).end();
      },
    });
    const pins = ['www.shop.test', 'cdn.shop.test', 'third.test', 'victim.gitbook.io', 'attacker.gitbook.io']
      .map((h) => `${h}=127.0.0.1:${site.port}`)
      .join(',');
    svc = await startTestService('sqlite', { TRAWL_ALLOW_PRIVATE_NETWORK: '0', TRAWL_RESOLVE: pins });
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    intranet?.close();
  });

  const scrape = async (key: string, body: Record<string, unknown>) => {
    const res = await svc.post('/v1/scrape', { timeout_ms: 30_000, ...body }, key);
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('runs every action type in order and returns their outputs in step order', async () => {
    const { key, accountId } = await svc.newKey(10);
    const { status, body } = await scrape(key, {
      url: 'http://www.shop.test/actions',
      formats: ['markdown'],
      actions: [
        { type: 'wait', milliseconds: 50 },
        { type: 'wait', selector: '#late' },
        { type: 'scrape' },
        { type: 'click', selector: '#more' },
        { type: 'click', selector: '.inc', all: true },
        { type: 'write', selector: '#q', text: 'kettle' },
        { type: 'write', text: ' blue' },
        { type: 'press', key: 'Enter' },
        { type: 'scroll', direction: 'down', amount: 700 },
        {
          type: 'execute_javascript',
          script:
            'return { scrolled: window.scrollY, count: window.count, echo: document.getElementById("echo").textContent, entered: document.body.dataset.entered }',
        },
        { type: 'scroll', direction: 'down', amount: 'bottom' },
        { type: 'screenshot' },
        {
          type: 'execute_javascript',
          script: 'await new Promise((r) => setTimeout(r, 10)); return window.scrollY > 3000',
        },
        { type: 'scrape' },
      ],
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.actions.javascript_returns).toEqual([
      { scrolled: 700, count: 3, echo: 'kettle blue', entered: 'q' },
      true,
    ]);
    expect(body.actions.scrapes).toHaveLength(2);
    expect(body.actions.scrapes[0].url).toBe('http://www.shop.test/actions');
    // The first snapshot was before the click: the hidden paragraph is not there yet, the late one is.
    expect(body.actions.scrapes[0].markdown).toContain('Late paragraph');
    expect(body.actions.scrapes[0].markdown).not.toContain('hidden paragraph that a click reveals');
    expect(body.actions.scrapes[1].markdown).toContain('hidden paragraph that a click reveals');
    expect(body.markdown).toContain('hidden paragraph that a click reveals');
    expect(body.actions.screenshots).toHaveLength(1);
    const shot = await fetch(body.actions.screenshots[0]);
    expect(shot.headers.get('content-type')).toBe('image/png');
    expect(pngSize(Buffer.from(await shot.arrayBuffer()))).toEqual({ width: 1280, height: 800 });
    expect(await svc.credits(accountId)).toBe(9);
  }, 60_000);

  it("a step that cannot be done is 422 action_failed naming it, charged: the caller's steps ran", async () => {
    const { key, accountId } = await svc.newKey(5);
    const missing = await scrape(key, {
      url: 'http://www.shop.test/actions',
      actions: [
        { type: 'wait', milliseconds: 10 },
        { type: 'click', selector: '#nope' },
      ],
    });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      error: 'action_failed',
      detail: "actions[1]: no element matches '#nope' within 5000 ms",
    });
    const thrown = await scrape(key, {
      url: 'http://www.shop.test/actions',
      actions: [{ type: 'execute_javascript', script: 'throw new Error("boom")' }],
    });
    expect(thrown.status).toBe(422);
    expect(thrown.body.detail).toBe('actions[0]: the script threw: Error: boom');
    const tooBig = await scrape(key, {
      url: 'http://www.shop.test/actions',
      actions: [{ type: 'execute_javascript', script: 'return "x".repeat(70000)' }],
    });
    expect(tooBig.body).toMatchObject({ error: 'action_failed', detail: expect.stringContaining('at most 64 KiB') });
    const key2 = await scrape(key, {
      url: 'http://www.shop.test/actions',
      actions: [{ type: 'press', key: 'NoSuchKey' }],
    });
    expect(key2.body).toMatchObject({
      error: 'action_failed',
      detail: expect.stringContaining("unknown key 'NoSuchKey'"),
    });
    // Each ran the caller's steps in our browser: charged though it failed (a step may have sent
    // the page anywhere before it threw, as the next test shows).
    expect(await svc.credits(accountId)).toBe(1);
  }, 60_000);

  it('a script that sends the page away and then throws is charged: the content left through it', async () => {
    const { key, accountId } = await svc.newKey(5);
    const before = sunk.length;
    const r = await scrape(key, {
      url: 'http://www.shop.test/actions',
      actions: [
        {
          type: 'execute_javascript',
          script:
            'await fetch("http://third.test/sink", { method: "POST", body: document.documentElement.outerHTML }); throw new Error("gone")',
        },
      ],
    });
    expect(r).toMatchObject({ status: 422, body: { error: 'action_failed' } });
    expect(sunk.slice(before).join('')).toContain('The hidden paragraph that a click reveals.');
    expect(await svc.credits(accountId)).toBe(4);
    // A failure before any step ran (the page could not be loaded) stays free.
    const gone = await scrape(key, {
      url: 'http://www.shop.test/nowhere-404',
      render: 'browser',
      actions: [{ type: 'wait', milliseconds: 10 }],
    });
    expect(gone.status).not.toBe(200);
    expect(await svc.credits(accountId)).toBe(4);
  }, 60_000);

  it('screenshots: the viewport (default and given), the whole page, capped at 16,384 px, PNG or JPEG, served by an unguessable URL', async () => {
    const { key } = await svc.newKey(10);
    const get = async (url: string) => {
      expect(url).toMatch(new RegExp(`^${svc.url}/v1/files/[0-9A-Za-z]{32}\\.(png|jpeg)$`));
      const res = await fetch(url);
      expect(res.status).toBe(200);
      return { type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
    };
    const viewport = await scrape(key, { url: 'http://www.shop.test/tall', formats: ['screenshot'] });
    expect(viewport.status).toBe(200);
    expect(viewport.body.markdown).toBeUndefined();
    expect(pngSize((await get(viewport.body.screenshot)).bytes)).toEqual({ width: 1280, height: 800 });
    const small = await scrape(key, {
      url: 'http://www.shop.test/tall',
      formats: ['markdown', 'screenshot'],
      viewport: { width: 640, height: 480 },
    });
    expect(small.body.markdown).toContain('Tall page');
    expect(pngSize((await get(small.body.screenshot)).bytes)).toEqual({ width: 640, height: 480 });
    const full = await scrape(key, { url: 'http://www.shop.test/tall', formats: ['screenshot@full_page'] });
    expect(pngSize((await get(full.body.screenshot)).bytes)).toEqual({ width: 1280, height: 3000 });
    const capped = await scrape(key, { url: 'http://www.shop.test/huge', formats: ['screenshot@full_page'] });
    expect(pngSize((await get(capped.body.screenshot)).bytes)).toEqual({ width: 1280, height: 16_384 });
    // A page wider than the largest viewport is cut there too (a 100,000 px wide page would take gigabytes).
    const wide = await scrape(key, { url: 'http://www.shop.test/wide', formats: ['screenshot@full_page'] });
    expect(pngSize((await get(wide.body.screenshot)).bytes)).toEqual({ width: 3840, height: 1000 });
    const jpeg = await scrape(key, {
      url: 'http://www.shop.test/tall',
      formats: ['screenshot'],
      screenshot_format: 'jpeg',
    });
    const j = await get(jpeg.body.screenshot);
    expect(j.type).toBe('image/jpeg');
    expect(j.bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    // A PDF: Chromium's viewer shows its first page; the markdown is the document's own text.
    const pdf = await scrape(key, { url: 'http://www.shop.test/doc.pdf', formats: ['markdown', 'screenshot'] });
    expect(pdf.status, JSON.stringify(pdf.body)).toBe(200);
    expect(pdf.body.markdown).toContain('Sales rose in the third quarter.');
    expect(pdf.body.metadata.content_type).toBe('application/pdf');
    expect(pngSize((await get(pdf.body.screenshot)).bytes)).toEqual({ width: 1280, height: 800 });
    // Another id, or the right id with another extension, is not found (and says so in the contract's shape).
    const id = (viewport.body.screenshot as string).split('/').pop()!.split('.')[0];
    for (const wrong of [`${id}.jpeg`, `${'A'.repeat(32)}.png`, 'x.png', `${id}`]) {
      const res = await fetch(`${svc.url}/v1/files/${wrong}`);
      expect(res.status, wrong).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'not_found' });
    }
  }, 90_000);

  it('headers and cookies reach the target and its own site, never a third party nor a redirect elsewhere (HTTP path)', async () => {
    const { key } = await svc.newKey(10);
    seen.length = 0;
    const ok = await scrape(key, {
      url: 'http://www.shop.test/article',
      render: 'http',
      headers: { 'X-Token': 'tok-http' },
      cookies: [
        { name: 'sid', value: 's1' },
        { name: 'wide', value: 'w1', domain: 'shop.test' },
      ],
    });
    expect(ok.status).toBe(200);
    const [target] = seenAt('www.shop.test', '/article');
    expect(target.headers['x-token']).toBe('tok-http');
    expect(target.headers.cookie).toBe('sid=s1; wide=w1');
    const away = await scrape(key, {
      url: 'http://www.shop.test/away',
      render: 'http',
      headers: { 'X-Token': 'tok-away' },
      cookies: [{ name: 'sid', value: 's2' }],
    });
    expect(away.status).toBe(200);
    expect(seenAt('www.shop.test', '/away')[0].headers['x-token']).toBe('tok-away');
    const [third] = seenAt('third.test', '/article');
    expect(third.headers['x-token']).toBeUndefined();
    expect(third.headers.cookie).toBeUndefined();
    for (const render of ['http', 'browser'] as const) {
      seen.length = 0;
      const hop = await scrape(key, {
        url: 'http://victim.gitbook.io/to-neighbour',
        render,
        headers: { Authorization: 'Bearer victim-secret', 'X-Secret': 's' },
      });
      expect(JSON.stringify(hop), render).toContain('"status":200');
      expect(seenAt('victim.gitbook.io', '/to-neighbour')[0].headers.authorization).toBe('Bearer victim-secret');
      const [neighbour] = seenAt('attacker.gitbook.io', '/article');
      expect(neighbour.headers.authorization, render).toBeUndefined();
      expect(neighbour.headers['x-secret'], render).toBeUndefined();
    }
  }, 30_000);

  it('headers and cookies in the browser go to the target and same-site sub-resources only', async () => {
    const { key } = await svc.newKey(10);
    seen.length = 0;
    const r = await scrape(key, {
      url: 'http://www.shop.test/probe',
      render: 'browser',
      headers: { 'X-Token': 'tok-b' },
      cookies: [
        { name: 'sid', value: 'b1' },
        { name: 'wide', value: 'w2', domain: 'shop.test' },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [doc] = seenAt('www.shop.test', '/probe');
    expect(doc.headers['x-token']).toBe('tok-b');
    expect(doc.headers.cookie?.split('; ').sort()).toEqual(['sid=b1', 'wide=w2']);
    const [cdn] = seenAt('cdn.shop.test', '/pixel.png');
    expect(cdn.headers['x-token']).toBe('tok-b');
    expect(cdn.headers.cookie).toBe('wide=w2');
    const third = [...seenAt('third.test', '/pixel.png'), ...seenAt('third.test', '/api')];
    expect(third.length).toBe(2);
    for (const t of third) {
      expect(t.headers['x-token']).toBeUndefined();
      expect(t.headers.cookie).toBeUndefined();
    }
    // A site page that redirects to another site: the next hop gets neither (Chromium would carry intercepted headers over).
    seen.length = 0;
    const away = await scrape(key, {
      url: 'http://www.shop.test/away',
      render: 'browser',
      headers: { 'X-Token': 'tok-away' },
      cookies: [{ name: 'sid', value: 'b2' }],
    });
    expect(away.status, JSON.stringify(away.body)).toBe(200);
    expect(away.body.url).toBe('http://third.test/article');
    expect(seenAt('www.shop.test', '/away')[0].headers['x-token']).toBe('tok-away');
    const [hop] = seenAt('third.test', '/article');
    expect(hop.headers['x-token']).toBeUndefined();
    expect(hop.headers.cookie).toBeUndefined();
  }, 30_000);

  it('mobile and location: user agent, viewport, touch, Accept-Language, locale and time zone', async () => {
    const { key } = await svc.newKey(10);
    seen.length = 0;
    const r = await scrape(key, {
      url: 'http://www.shop.test/probe',
      render: 'browser',
      formats: ['raw_html', 'screenshot'],
      mobile: true,
      location: { country: 'DE', languages: ['de-DE', 'en'] },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const probe = JSON.parse(/<p id="probe">([^<]*)<\/p>/.exec(r.body.raw_html)![1].replace(/&quot;/g, '"'));
    expect(probe).toMatchObject({ tz: 'Europe/Berlin', lang: 'de-DE', width: 412 });
    expect(probe.touch).toBeGreaterThan(0);
    expect(probe.ua).toMatch(/Android.*Mobile/);
    const [doc] = seenAt('www.shop.test', '/probe');
    expect(doc.headers['user-agent']).toMatch(/Android.*Mobile/);
    expect(doc.headers['accept-language']).toMatch(/^de-DE,.*en/);
    expect(pngSize(Buffer.from(await (await fetch(r.body.screenshot)).arrayBuffer()))).toEqual({
      width: 412,
      height: 915,
    });
    // The HTTP path sends the same device and languages.
    seen.length = 0;
    await scrape(key, {
      url: 'http://www.shop.test/article',
      render: 'http',
      mobile: true,
      location: { country: 'FR' },
    });
    const [plain] = seenAt('www.shop.test', '/article');
    expect(plain.headers['user-agent']).toMatch(/Android.*Mobile/);
    expect(plain.headers['accept-language']).toBe('fr-FR,fr;q=0.9');
  }, 30_000);

  it('actions cannot reach loopback: a script fetch is refused inside the page, a click to the intranet is 403', async () => {
    const { key, accountId } = await svc.newKey(5);
    const before = intranetConnections;
    const fetched = await scrape(key, {
      url: 'http://www.shop.test/actions',
      actions: [
        {
          type: 'execute_javascript',
          script: `try { return await (await fetch('http://127.0.0.1:${intranetPort}/secret')).text(); } catch (e) { return 'refused'; }`,
        },
      ],
    });
    expect(fetched.status).toBe(200);
    expect(fetched.body.actions.javascript_returns).toEqual(['refused']);
    expect(JSON.stringify(fetched.body)).not.toContain(SECRET);
    const clicked = await scrape(key, {
      url: 'http://www.shop.test/actions',
      actions: [{ type: 'click', selector: '#go-intranet' }, { type: 'scrape' }],
    });
    expect(clicked.status).toBe(403);
    expect(clicked.body.error).toBe('forbidden_target');
    expect(JSON.stringify(clicked.body)).not.toContain(SECRET);
    const navigated = await scrape(key, {
      url: 'http://www.shop.test/actions',
      actions: [
        {
          type: 'execute_javascript',
          script: `location.href = 'http://127.0.0.1:${intranetPort}/'; await new Promise((r) => setTimeout(r, 500)); return 1`,
        },
      ],
    });
    expect([403, 422]).toContain(navigated.status);
    expect(JSON.stringify(navigated.body)).not.toContain(SECRET);
    expect(intranetConnections - before).toBe(0);
    // Each ran the caller's steps in our browser, so each was charged, refused or not.
    expect(await svc.credits(accountId)).toBe(2);
  }, 60_000);

  it('refuses bad options with 400 naming the field, before any work', async () => {
    const { key, accountId } = await svc.newKey(5);
    const cases: [Record<string, unknown>, string][] = [
      [
        { actions: [{ type: 'hover', selector: 'a' }] },
        'actions[0].type: must be one of wait, click, write, press, scroll, screenshot, scrape, execute_javascript (got "hover")',
      ],
      [
        { actions: [{ type: 'wait' }] },
        'actions[0]: a wait needs either "milliseconds" (1 to 60000) or "selector", not both',
      ],
      [{ actions: [{ type: 'click' }] }, 'actions[0].selector: is required'],
      [{ actions: Array.from({ length: 51 }, () => ({ type: 'scrape' })) }, 'actions: must have at most 50 steps'],
      [
        {
          actions: [
            { type: 'wait', milliseconds: 20_000 },
            { type: 'wait', milliseconds: 15_000 },
          ],
        },
        'actions: the waits add up to 35000 ms, which does not fit in timeout_ms (30000); wait less or raise timeout_ms',
      ],
      [{ headers: { Host: 'evil.test' } }, "headers.Host: cannot be set: the host is the URL's"],
      [
        { headers: { Connection: 'close' } },
        'headers.Connection: cannot be set: it belongs to the connection, which Trawl manages',
      ],
      [{ headers: { 'X-A': 'x'.repeat(5000) } }, 'headers.X-A: must be at most 4096 bytes'],
      [
        { cookies: [{ name: 'a', value: 'b', domain: 'other.test' }] },
        'cookies[0].domain: "other.test" is not on the target\'s site (shop.test); cookies go to the target\'s own site only',
      ],
      [
        { formats: ['screenshot'], render: 'http' },
        'render: screenshots and actions need the browser; leave render out or set it to "browser"',
      ],
      [{ wait_for: 100, render: 'http' }, 'wait_for: only applies when render is "browser" or "auto"'],
      [
        { formats: ['screenshot', 'screenshot@full_page'] },
        'formats: ask for either "screenshot" or "screenshot@full_page", not both',
      ],
      [{ screenshot_format: 'gif' }, 'screenshot_format: must be one of png, jpeg'],
      [{ viewport: { width: 10, height: 800 } }, 'viewport.width: must be an integer from 240 to 3840'],
      [
        { location: { country: 'XX' } },
        'location.country: must be an ISO 3166-1 alpha-2 code of a country, such as "DE"',
      ],
      [
        { location: { languages: ['not a tag!'] } },
        'location.languages[0]: must be a BCP 47 language tag such as "de-DE" or "en"',
      ],
      [{ max_age: -1 }, 'max_age: must be an integer from 0 to 2592000000'],
      [{ mobile: 'yes' }, 'mobile: must be true or false'],
    ];
    for (const [extra, detail] of cases) {
      const r = await scrape(key, { url: 'http://www.shop.test/article', ...extra });
      expect(r, JSON.stringify(extra)).toEqual({ status: 400, body: { error: 'invalid_request', detail } });
    }
    expect(await svc.credits(accountId)).toBe(5);
  }, 30_000);
});
