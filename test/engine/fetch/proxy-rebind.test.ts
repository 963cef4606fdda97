/**
 * An outside attack (issue 42) found: through a proxy tier the HTTP path checked the name here,
 * then handed the proxy the NAME, which the proxy resolved again. A name that resolves to a public
 * address here and to a private one at the proxy (DNS rebinding with TTL 0, or split-horizon DNS at
 * the operator's proxy) reached the private address. The proxy is now asked for the checked address.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { fetchPage } from '../../../src/engine/fetch/page.js';
import { startForwardProxy, type ForwardProxy } from '../../helpers/walls.js';

const SECRET = 'INTRANET-SECRET-rebind-42';
/** What this client's DNS answers for the attacker's name: a public address (never reached here). */
const PUBLIC = '93.184.216.34';

describe('DNS rebinding through a proxy tier (guard on)', () => {
  let intranet: Server;
  let hits = 0;
  let proxy: ForwardProxy;
  let port = 0;
  beforeAll(async () => {
    intranet = createServer((req, res) => {
      hits++;
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<html><head><title>intranet</title></head><body><article><p>${SECRET} — an internal page long enough to be kept as the main content, for ${req.headers.host}.</p></article></body></html>`,
        );
    });
    await new Promise<void>((r) => intranet.listen(0, '127.0.0.1', r));
    port = (intranet.address() as AddressInfo).port;
    // The proxy's DNS answers 127.0.0.1 for the attacker's name (the rebound answer); the public
    // address it is asked for instead goes to a loopback address nothing listens on (no internet).
    proxy = await startForwardProxy('127.0.0.1', { 'rebind.attacker.test': '127.0.0.1', [PUBLIC]: '127.0.0.9' });
  });
  afterAll(async () => {
    await proxy?.close();
    await new Promise((r) => intranet?.close(r));
  });

  for (const tier of ['basic', 'stealth'] as const) {
    it(`${tier} tier: the proxy is asked for the checked address, not the name`, async () => {
      const http = new HttpClient({
        lookup: async () => [{ address: PUBLIC }],
        ...(tier === 'basic' ? { proxyUrls: [proxy.url] } : { stealthProxyUrls: [proxy.url] }),
      });
      hits = 0;
      const asked = proxy.requests;
      try {
        const r = await fetchPage({ http }, `http://rebind.attacker.test:${port}/`, {
          render: 'http',
          proxy: tier,
          timeoutMs: 5000,
        }).catch((e: unknown) => e as { text?: string });
        expect(proxy.requests).toBeGreaterThan(asked);
        expect({ leaked: String((r as { text?: string }).text ?? '').includes(SECRET), hits }).toEqual({
          leaked: false,
          hits: 0,
        });
      } finally {
        await http.close();
      }
    });
  }

  it('the site still gets its name as Host through the proxy', async () => {
    // An operator's pin (TRAWL_RESOLVE) sends the checked name to the intranet, allowed here.
    const http = new HttpClient({
      allowPrivateNetwork: true,
      proxyUrls: [proxy.url],
      resolve: [{ host: 'site.test', address: '127.0.0.1' }],
    });
    try {
      const page = await fetchPage({ http }, `http://site.test:${port}/`, {
        render: 'http',
        proxy: 'basic',
        timeoutMs: 5000,
      });
      expect(page.text).toContain(`for site.test:${port}`);
    } finally {
      await http.close();
    }
  });

  it('a proxy that closes instead of opening the tunnel fails the request at once, with one CONNECT', async () => {
    // (undici took the closed tunnel for a dropped keep-alive connection and sent ~4,000 CONNECTs
    // a second for ever, past every timeout.)
    const http = new HttpClient({ lookup: async () => [{ address: PUBLIC }], proxyUrls: [proxy.url] });
    const asked = proxy.requests;
    try {
      const e = await http
        .request(`http://refused.test:${port}/`, { timeoutMs: 3000, proxyTier: 'basic' })
        .catch((x: unknown) => x as { code: string; detail: string });
      expect(e).toMatchObject({ code: 'fetch_failed', detail: expect.stringMatching(/closed the connection/) });
      await new Promise((r) => setTimeout(r, 300));
      expect(proxy.requests - asked).toBe(1);
    } finally {
      await http.close();
    }
  });

  it('TLS through the proxy still names the site (SNI), though the tunnel goes to its address', async () => {
    // A raw socket behind the proxy keeps the ClientHello: its server name is in plain text.
    let hello: Buffer = Buffer.alloc(0);
    const tls = createNetServer((s) => {
      s.once('data', (d: Buffer) => {
        hello = d;
        s.destroy();
      });
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    const tlsPort = (tls.address() as AddressInfo).port;
    const http = new HttpClient({
      allowPrivateNetwork: true,
      proxyUrls: [proxy.url],
      resolve: [{ host: 'shop.test', address: '127.0.0.1' }],
    });
    try {
      await http
        .request(`https://shop.test:${tlsPort}/`, { timeoutMs: 3000, proxyTier: 'basic' })
        .catch(() => undefined);
      expect(hello.includes(Buffer.from('shop.test'))).toBe(true);
    } finally {
      await http.close();
      await new Promise((r) => tls.close(r));
    }
  });
});
