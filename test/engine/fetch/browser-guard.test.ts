/**
 * Chromium goes through the guarded proxy: whatever a rendered page does — a redirect, a script
 * navigation, fetch, images, WebSockets, WebRTC, a name that resolves to loopback — nothing reaches
 * a loopback "intranet" server while the guard is on. The public site is served on loopback too,
 * under a TRAWL_RESOLVE pin (`public.test`), the way an operator's pin is trusted; the intranet
 * server records every TCP connection and UDP packet it receives.
 */
import { createServer as createNetServer, type Server as NetServer, type AddressInfo } from 'node:net';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumPool, findChromium } from '../../../src/engine/fetch/browser.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { createEngine, type Engine } from '../../../src/engine/index.js';
import { scrape } from '../../../src/engine/scrape.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

const chromium = findChromium();
const SECRET = 'INTRANET-SECRET-7f3a';

describe.skipIf(!chromium)('the browser reaches nothing private', () => {
  let site: FixtureServer;
  let intranet: NetServer;
  let udp: UdpSocket;
  let port = 0;
  let connections = 0;
  let packets = 0;
  const pages = () => ({
    // A WebSocket, a fetch, an image and an iframe to loopback (several spellings) and to a name
    // that resolves to loopback; whatever comes back is written into the page.
    '/subresources': `<html><head><title>Sub-resources</title></head><body><article><h1>Sub-resources</h1>
      <p>A public article about kettles, long enough to be the page's main content for the extractor.</p>
      <p id="out">nothing</p>
      <img src="http://127.0.0.1:${port}/img.png"><img src="http://2130706433:${port}/img2.png"><img src="http://[::ffff:127.0.0.1]:${port}/img3.png">
      <iframe src="http://127.0.0.1:${port}/frame"></iframe>
      <script>
        const out = document.getElementById('out');
        const add = (t) => { out.textContent += ' ' + t; };
        try { const ws = new WebSocket('ws://127.0.0.1:${port}/'); ws.onmessage = (m) => add(m.data); } catch (e) {}
        fetch('http://127.0.0.1:${port}/api').then((r) => r.text()).then(add, () => add('fetch-refused'));
        fetch('http://rebind.test:${port}/api').then((r) => r.text()).then(add, () => add('rebind-refused'));
        try {
          const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${port}' }] });
          pc.createDataChannel('x'); pc.createOffer().then((o) => pc.setLocalDescription(o));
        } catch (e) {}
      </script></article></body></html>`,
    '/redirect': (_req: unknown, res: import('node:http').ServerResponse) =>
      void res.writeHead(302, { location: `http://127.0.0.1:${port}/secret` }).end(),
    // An app shell (render: auto renders it) whose script navigates to the intranet.
    '/navigate': `<html><head><title>App</title></head><body><div id="root"></div><script>location.href = 'http://127.0.0.1:${port}/secret';</script></body></html>`,
    '/rebind': `<html><head><title>App</title></head><body><div id="root"></div><script>location.href = 'http://rebind.test:${port}/secret';</script></body></html>`,
  });

  beforeAll(async () => {
    // The intranet: answers HTTP (and anything else) with the secret, counting every connection.
    intranet = createNetServer((s) => {
      connections++;
      s.on('error', () => undefined);
      s.end(
        `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nAccess-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n<p>${SECRET}</p>`,
      );
    });
    await new Promise<void>((r) => intranet.listen(0, '127.0.0.1', r));
    port = (intranet.address() as AddressInfo).port;
    udp = createSocket('udp4');
    udp.on('message', () => packets++);
    await new Promise<void>((r) => udp.bind(port, '127.0.0.1', r));
    site = await startFixtureServer(pages());
  });
  afterAll(async () => {
    await site?.close();
    intranet?.close();
    udp?.close();
  });

  /** The service's wiring: public.test pinned to the site (trusted), rebind.test resolving to loopback. */
  function pool(allowPrivateNetwork = false, maxBytes?: number) {
    const http = new HttpClient({
      allowPrivateNetwork,
      resolve: [{ host: 'public.test', address: '127.0.0.1', port: site.port }],
      lookup: async (host) =>
        host === 'rebind.test'
          ? [{ address: '127.0.0.1' }]
          : Promise.reject(Object.assign(new Error('no such host'), { code: 'ENOTFOUND' })),
    });
    return { http, browser: new ChromiumPool({ http, maxBytes }) };
  }

  it('refuses a redirect hop to loopback: the whole render is forbidden_target', async () => {
    const { http, browser } = pool();
    try {
      const before = connections;
      await expect(browser.render('http://public.test/redirect', { timeoutMs: 15_000 })).rejects.toMatchObject({
        code: 'forbidden_target',
      });
      expect(connections - before).toBe(0);
    } finally {
      await browser.close();
      await http.close();
    }
  }, 60_000);

  it('refuses a script navigation (render: auto on an app shell) and a name that resolves to loopback', async () => {
    const engine: Engine = createEngine({
      allowPrivateNetwork: false,
      resolve: [{ host: 'public.test', address: '127.0.0.1', port: site.port }],
      proxyUrls: [],
    });
    const { http, browser } = pool();
    try {
      const before = connections;
      await expect(
        scrape(engine, { url: 'http://public.test/navigate', render: 'auto', timeoutMs: 15_000 }),
      ).rejects.toMatchObject({ code: 'forbidden_target' });
      await expect(browser.render('http://public.test/rebind', { timeoutMs: 15_000 })).rejects.toMatchObject({
        code: 'forbidden_target',
        detail: expect.stringContaining('rebind.test resolves to 127.0.0.1'),
      });
      expect(connections - before).toBe(0);
    } finally {
      await engine.close();
      await browser.close();
      await http.close();
    }
  }, 60_000);

  it('refuses sockets, fetches, images, frames and WebRTC of a public page; the page is still answered, with a warning', async () => {
    const { http, browser } = pool();
    try {
      const [c0, p0] = [connections, packets];
      const r = await browser.render('http://public.test/subresources', { timeoutMs: 15_000, waitFor: 1500 });
      expect(r.html).toContain('A public article about kettles');
      expect(r.html).not.toContain(SECRET);
      expect(r.html).toContain('fetch-refused');
      expect(r.html).toContain('rebind-refused');
      expect(r.warnings?.[0]).toMatch(/refused \(.*127\.0\.0\.1:/);
      expect(connections - c0).toBe(0);
      expect(packets - p0).toBe(0);
    } finally {
      await browser.close();
      await http.close();
    }
  }, 60_000);

  it('control: with private targets allowed the same page does reach the intranet (the fixture is live)', async () => {
    const { http, browser } = pool(true);
    try {
      const c0 = connections;
      const r = await browser.render('http://public.test/subresources', { timeoutMs: 15_000, waitFor: 1500 });
      expect(r.html).toContain(SECRET);
      expect(connections - c0).toBeGreaterThan(0);
    } finally {
      await browser.close();
      await http.close();
    }
  }, 60_000);

  it('counts what the page uploads against the budget too, and reports an unresolvable name as unreachable, not refused', async () => {
    let received = 0;
    site.route('/sink', (req, res) => {
      req.on('data', (c: Buffer) => (received += c.length));
      req.on('end', () => void res.writeHead(204).end());
      req.on('error', () => undefined);
    });
    site.route(
      '/upload',
      `<html><head><title>Upload</title></head><body><p>A page that uploads.</p><script>
      const blob = new Blob([new Uint8Array(4 * 1024 * 1024)]);
      (async () => { for (let i = 0; i < 5; i++) await fetch('/sink', { method: 'POST', body: blob }).catch(() => {}); })();
    </script></body></html>`,
    );
    const { http, browser } = pool(false, 1_000_000);
    try {
      const r = await browser.render('http://public.test/upload', { timeoutMs: 15_000, waitFor: 2000 });
      expect(r.warnings?.join(' ')).toMatch(/more than 977 KiB/);
      expect(received).toBeLessThan(1_100_000);
      // Not the guard's doing: the proxy answers 502 (the scrape says the target could not be reached), never a refusal.
      expect((await browser.render('http://nowhere.test/', { timeoutMs: 15_000 })).status).toBe(502);
    } finally {
      await browser.close();
      await http.close();
    }
  }, 60_000);

  it('cuts a render that downloads more than its byte budget', async () => {
    site.route(
      '/big.js',
      (_req, res) => void res.writeHead(200, { 'content-type': 'text/javascript' }).end(`/*${'x'.repeat(2_000_000)}*/`),
    );
    site.route(
      '/heavy',
      '<html><head><title>Heavy</title><script src="/big.js"></script></head><body><p>A page with a heavy script.</p></body></html>',
    );
    const { http, browser } = pool(false, 500_000);
    try {
      const r = await browser.render('http://public.test/heavy', { timeoutMs: 15_000 });
      expect(r.html).toContain('A page with a heavy script');
      expect(r.warnings?.join(' ')).toMatch(/more than 488 KiB/);
    } finally {
      await browser.close();
      await http.close();
    }
  }, 60_000);
});
