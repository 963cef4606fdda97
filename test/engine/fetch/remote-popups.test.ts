/**
 * A remote browser's other targets (issue 42's attack pass): a popup (`window.open`) is a target
 * of its own, whose requests Playwright's context routes did not see: they went to the context's
 * deny-all proxy and failed closed. It is now held until its requests are paused and made by the
 * guarded client like the page's: the site answers them, and a private address stays refused.
 */
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumPool, findChromium } from '../../../src/engine/fetch/browser.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { fetchPage, type Fetchers } from '../../../src/engine/fetch/page.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';
import { startRemoteChromium } from '../../helpers/remote-chromium.js';

const chromium = findChromium();
const SECRET = 'INTRANET-SECRET-popup-5e1a';
const noDns = async (): Promise<{ address: string }[]> => {
  throw Object.assign(new Error('no DNS in tests'), { code: 'ENOTFOUND' });
};
const text =
  (body: string, type = 'text/plain') =>
  (_req: unknown, res: import('node:http').ServerResponse) =>
    void res.writeHead(200, { 'content-type': type, 'access-control-allow-origin': '*' }).end(body);

describe.skipIf(!chromium)("a remote browser's popups and shared workers go through the guard", () => {
  let remote: Awaited<ReturnType<typeof startRemoteChromium>>;
  let http: HttpClient;
  let fetchers: Fetchers;
  let intranet: NetServer;
  let connections = 0;
  let site: FixtureServer;

  beforeAll(async () => {
    remote = await startRemoteChromium(chromium!);
    intranet = createNetServer((s) => {
      connections++;
      s.on('error', () => undefined);
      s.end(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nAccess-Control-Allow-Origin: *\r\n\r\n${SECRET}`);
    });
    await new Promise<void>((r) => intranet.listen(0, '127.0.0.1', r));
    const port = (intranet.address() as AddressInfo).port;
    site = await startFixtureServer({
      '/': `<html><head><title>Kettles</title></head><body><article><h1>Kettles</h1>
        <p>A public article about kettles, long enough to be the page's main content for the extractor to keep.</p>
        <p id="out">seen:</p><button id="open">Open</button>
        <script>
          const out = document.getElementById('out');
          const add = (t) => { out.textContent += ' ' + t; };
          // (A popup opens on a click: browsers block the others.)
          document.getElementById('open').onclick = () => window.open('/popup', 'pop', 'width=400,height=400');
          const s = new SharedWorker('/shared.js');
          s.port.onmessage = (e) => add(e.data);
        </script></article></body></html>`,
      '/popup': `<html><body><script>
          const tell = (t) => opener.document.getElementById('out').textContent += ' ' + t;
          tell('popup-loaded');
          fetch('/api-pop').then((r) => r.text()).then(tell, () => tell('popup-fetch-failed'));
          fetch('http://127.0.0.1:${port}/x').then((r) => r.text()).then(tell, () => tell('popup-private-refused'));
        </script></body></html>`,
      '/shared.js': text(
        `onconnect = (e) => { const p = e.ports[0];
          fetch('/api-sw').then((r) => r.text()).then((t) => p.postMessage(t), () => p.postMessage('shared-fetch-failed'));
          fetch('http://127.0.0.1:${port}/x').then((r) => r.text()).then((t) => p.postMessage(t), () => p.postMessage('shared-private-refused')); };`,
        'text/javascript',
      ),
      '/api-pop': text('popup-fetched'),
      '/api-sw': text('shared-fetched'),
    });
    http = new HttpClient({ lookup: noDns, resolve: [{ host: 'public.test', address: '127.0.0.1', port: site.port }] });
    fetchers = { http, browser: new ChromiumPool({ http, endpoint: remote.endpoint }) };
  }, 30_000);

  afterAll(async () => {
    await fetchers?.browser?.close();
    await http?.close();
    await site?.close();
    await new Promise((r) => intranet?.close(r));
    await remote?.stop();
  });

  it('a popup reaches the site through the guarded client; private addresses stay refused', async () => {
    const page = await fetchPage(fetchers, 'http://public.test/', {
      render: 'browser',
      timeoutMs: 20_000,
      actions: [
        { type: 'click', selector: '#open' },
        { type: 'wait', milliseconds: 3000 },
      ],
    });
    expect(page.text).toContain('popup-loaded');
    expect(page.text).toContain('popup-fetched');
    expect(page.text).toContain('popup-private-refused');
    // A shared worker's own requests are not paused by its session's Fetch domain: they still go
    // to the context's deny-all proxy and fail closed (STATUS: what remains), never elsewhere.
    expect(page.text).toContain('shared-private-refused');
    expect(page.text).not.toContain(SECRET);
    expect(connections).toBe(0);
  }, 40_000);
});
