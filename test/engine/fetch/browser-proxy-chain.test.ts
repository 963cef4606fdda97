/**
 * The browser's guarded proxy beyond plain HTTP: it chains to the operator's upstream proxies
 * (HTTP_PROXY_URLS) by CONNECT to the *checked address* — never the name, so the upstream cannot
 * resolve it to somewhere private — with the proxy's credentials; and HTTPS pages travel through a
 * CONNECT tunnel to the checked address (the TLS server sees the page's name in SNI), while an
 * HTTPS sub-resource or page on a private address gets no connection at all.
 */
import {
  connect as netConnect,
  createServer as createNetServer,
  type AddressInfo,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumPool, findChromium } from '../../../src/engine/fetch/browser.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

const chromium = findChromium();
/** The TLS case makes a throwaway certificate with the openssl command (skipped, saying so, without it). */
const openssl = spawnSync('openssl', ['version']).status === 0;
if (!openssl) console.warn('browser-proxy-chain: openssl not found; the HTTPS tunnel case is skipped');

/** A minimal upstream forward proxy (CONNECT only), recording each request line and its credentials. */
async function startUpstream(): Promise<{ port: number; seen: { line: string; auth?: string }[]; close(): void }> {
  const seen: { line: string; auth?: string }[] = [];
  const server: NetServer = createNetServer((client) => {
    client.on('error', () => undefined);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const lines = head.subarray(0, end).toString('latin1').split('\r\n');
      const auth = lines.find((l) => /^proxy-authorization:/i.test(l))?.split(/:\s*/)[1];
      seen.push({
        line: lines[0],
        auth: auth ? Buffer.from(auth.replace(/^Basic /i, ''), 'base64').toString() : undefined,
      });
      const m = /^CONNECT (\S+):(\d+) /.exec(lines[0]);
      if (!m) return void client.end('HTTP/1.1 405 Method Not Allowed\r\n\r\n');
      const target: Socket = netConnect({ host: m[1].replace(/^\[|\]$/g, ''), port: Number(m[2]) }, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        const rest = head.subarray(end + 4);
        if (rest.length) target.write(rest);
        client.pipe(target).pipe(client);
      });
      target.on('error', () => client.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, seen, close: () => server.close() };
}

describe.skipIf(!chromium)('the browser proxy: upstream chaining and HTTPS tunnels', () => {
  let site: FixtureServer;
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let tls: TlsServer;
  let tlsPort = 0;
  const sni: (string | undefined)[] = [];
  let intranetConnections = 0;
  let intranet: NetServer;
  let intranetPort = 0;
  let certDir = '';

  beforeAll(async () => {
    intranet = createNetServer((s) => {
      intranetConnections++;
      s.destroy();
    });
    await new Promise<void>((r) => intranet.listen(0, '127.0.0.1', r));
    intranetPort = (intranet.address() as AddressInfo).port;
    site = await startFixtureServer({
      '/page': `<html><head><title>Chained</title></head><body><article><h1>Chained</h1><p>Served through the operator's upstream proxy.</p>
        <img src="http://127.0.0.1:${intranetPort}/x.png"><script>fetch('https://127.0.0.1:${intranetPort}/api').catch(() => {});</script></article></body></html>`,
    });
    upstream = await startUpstream();
    // A TLS server with a throwaway self-signed certificate: Chromium will not trust it, but the
    // handshake shows where the tunnel went and for which name.
    if (!openssl) return;
    certDir = mkdtempSync(join(tmpdir(), 'trawl-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=secure.test',
        '-keyout',
        join(certDir, 'key.pem'),
        '-out',
        join(certDir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    tls = createTlsServer({
      key: readFileSync(join(certDir, 'key.pem')),
      cert: readFileSync(join(certDir, 'cert.pem')),
      SNICallback: (name, cb) => (sni.push(name), cb(null, undefined as never)),
    });
    tls.on('tlsClientError', () => undefined);
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    tlsPort = (tls.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await site?.close();
    upstream?.close();
    tls?.close();
    intranet?.close();
    if (certDir) rmSync(certDir, { recursive: true, force: true });
  });

  it('chains through HTTP_PROXY_URLS by CONNECT to the checked address, with the proxy credentials; private sub-resources never reach it', async () => {
    const http = new HttpClient({
      allowPrivateNetwork: false,
      resolve: [{ host: 'public.test', address: '127.0.0.1', port: site.port }],
      proxyUrls: [`http://scraper:p%40ss@127.0.0.1:${upstream.port}`],
    });
    const browser = new ChromiumPool({ http });
    try {
      const r = await browser.render('http://public.test/page', { timeoutMs: 15_000, waitFor: 1000 });
      expect(r.status).toBe(200);
      expect(r.html).toContain("Served through the operator's upstream proxy.");
      const lines = upstream.seen.map((s) => s.line);
      expect(lines).toContain(`CONNECT 127.0.0.1:${site.port} HTTP/1.1`);
      expect(lines.every((l) => !l.includes('public.test'))).toBe(true);
      expect(upstream.seen.every((s) => s.auth === 'scraper:p@ss')).toBe(true);
      // The private image and the HTTPS fetch were refused before any upstream saw them.
      expect(lines.some((l) => l.includes(String(intranetPort)))).toBe(false);
      expect(intranetConnections).toBe(0);
      expect(r.warnings?.join(' ')).toContain(`127.0.0.1:${intranetPort}`);
    } finally {
      await browser.close();
      await http.close();
    }
  }, 60_000);

  it.skipIf(!openssl)(
    'tunnels an HTTPS page to the checked address under its own name (SNI); an HTTPS private address gets no connection',
    async () => {
      const http = new HttpClient({
        allowPrivateNetwork: false,
        resolve: [{ host: 'secure.test', address: '127.0.0.1', port: tlsPort }],
      });
      const browser = new ChromiumPool({ http });
      try {
        const before = sni.length;
        // The certificate is untrusted, so the render fails — after the tunnel reached the pinned server.
        await expect(browser.render('https://secure.test/', { timeoutMs: 15_000 })).rejects.toBeTruthy();
        expect(sni.slice(before)).toContain('secure.test');
        await expect(browser.render(`https://127.0.0.1:${intranetPort}/`, { timeoutMs: 15_000 })).rejects.toMatchObject(
          { code: 'forbidden_target' },
        );
        expect(intranetConnections).toBe(0);
      } finally {
        await browser.close();
        await http.close();
      }
    },
    60_000,
  );
});
