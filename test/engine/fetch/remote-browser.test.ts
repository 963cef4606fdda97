/**
 * A remote browser (TRAWL_BROWSER_WS_ENDPOINT / TRAWL_BROWSER_CDP_URL; issue 42): a second local
 * Chromium started with --remote-debugging-port stands in for Browserless. Its pages render, a
 * JS challenge clears in it, and whatever its pages ask for still passes the address guard:
 * every request is made by the service's guarded client, so an "intranet" server on loopback is
 * never reached.
 */
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumPool, findChromium } from '../../../src/engine/fetch/browser.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { fetchPage, type Fetchers } from '../../../src/engine/fetch/page.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';
import { startRemoteChromium } from '../../helpers/remote-chromium.js';
import { ARTICLE_TEXT, startWall, type WallServer } from '../../helpers/walls.js';

const chromium = findChromium();
const SECRET = 'INTRANET-SECRET-remote-91c2';
const noDns = async (): Promise<{ address: string }[]> => {
  throw Object.assign(new Error('no DNS in tests'), { code: 'ENOTFOUND' });
};

describe.skipIf(!chromium)('a remote browser over CDP', () => {
  let remote: Awaited<ReturnType<typeof startRemoteChromium>>;
  let http: HttpClient;
  let fetchers: Fetchers;
  let intranet: NetServer;
  let connections = 0;
  let site: FixtureServer;
  let wall: WallServer;

  beforeAll(async () => {
    remote = await startRemoteChromium(chromium!);
    intranet = createNetServer((s) => {
      connections++;
      s.on('error', () => undefined);
      s.end(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nAccess-Control-Allow-Origin: *\r\n\r\n<p>${SECRET}</p>`);
    });
    await new Promise<void>((r) => intranet.listen(0, '127.0.0.1', r));
    const port = (intranet.address() as AddressInfo).port;
    site = await startFixtureServer({
      '/': `<html><head><title>Kettles</title></head><body><article><h1>Kettles</h1>
        <p>A public article about kettles, long enough to be the page's main content for the extractor to keep.</p>
        <p id="out">drawn:</p>
        <img src="http://127.0.0.1:${port}/img.png"><iframe src="http://127.0.0.1:${port}/frame"></iframe>
        <script>
          const out = document.getElementById('out');
          out.textContent += ' by-script';
          fetch('http://127.0.0.1:${port}/api').then((r) => r.text()).then((t) => { out.textContent += t; }, () => { out.textContent += ' fetch-refused'; });
          try { new WebSocket('ws://127.0.0.1:${port}/'); } catch (e) {}
        </script></article></body></html>`,
      '/hop': (_req, res) => void res.writeHead(302, { location: '/' }).end(),
      '/echo': (req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><head><title>Echo</title></head><body><article><h1>Echo</h1><p>A public page long enough to be kept as the main content, saying the header it was sent: ${String(req.headers['x-team'] ?? 'none')}.</p></article></body></html>`,
          ),
      '/to-intranet': (_req, res) => void res.writeHead(302, { location: `http://127.0.0.1:${port}/secret` }).end(),
    });
    wall = await startWall('js-challenge');
    // The guard is on: only the pinned names (the operator's trusted pins) reach loopback.
    http = new HttpClient({
      lookup: noDns,
      resolve: [
        { host: 'public.test', address: '127.0.0.1', port: site.port },
        { host: 'wall.test', address: '127.0.0.1', port: wall.port },
      ],
    });
    fetchers = { http, browser: new ChromiumPool({ http, endpoint: remote.endpoint }) };
  }, 30_000);

  afterAll(async () => {
    await fetchers?.browser?.close();
    await http?.close();
    await site?.close();
    await wall?.close();
    await new Promise((r) => intranet?.close(r));
    await remote?.stop();
  });

  it('renders a page in it; its requests to a private address are refused by the guard', async () => {
    const page = await fetchPage(fetchers, 'http://public.test/', { render: 'browser', timeoutMs: 20_000 });
    expect(page.rendered).toBe(true);
    expect(page.text).toContain('by-script');
    expect(page.text).toContain('fetch-refused');
    expect(page.text).not.toContain(SECRET);
    expect(page.warnings?.join(' ')).toMatch(/refused/);
    expect(connections).toBe(0);
  }, 30_000);

  it('the caller’s headers reach the site through the guarded client', async () => {
    // (They went by a second route, Playwright's own fetch, out through the deny-all proxy: failed.)
    const page = await fetchPage(fetchers, 'http://public.test/echo', {
      render: 'browser',
      timeoutMs: 20_000,
      setup: { headers: { 'X-Team': 'kettles-42' } },
    });
    expect(page.text).toContain('saying the header it was sent: kettles-42');
  }, 30_000);

  it('follows a redirect on the site', async () => {
    const page = await fetchPage(fetchers, 'http://public.test/hop', { render: 'browser', timeoutMs: 20_000 });
    expect(page.text).toContain('by-script');
    expect(page.url).toBe('http://public.test/');
  }, 30_000);

  it('a redirect to a private address refuses the whole render', async () => {
    const e = await fetchPage(fetchers, 'http://public.test/to-intranet', {
      render: 'browser',
      timeoutMs: 20_000,
    }).catch((x: unknown) => x as { code: string });
    expect(e, JSON.stringify(e)).toMatchObject({ code: 'forbidden_target' });
    expect(connections).toBe(0);
  }, 30_000);

  it('a JS interstitial clears in the remote browser (its cookie kept through the routed requests)', async () => {
    const page = await fetchPage(fetchers, 'http://wall.test/', { timeoutMs: 20_000 });
    expect(page.text).toContain(ARTICLE_TEXT);
    expect(page.tiersTried).toEqual(['basic', 'browser']);
  }, 30_000);
});
