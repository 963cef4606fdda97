/** `user:password@` in a URL is never repeated in answers — error details included, on either path. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumPool, findChromium } from '../../../src/engine/fetch/browser.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { fetchPage } from '../../../src/engine/fetch/page.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

let site: FixtureServer;
let http: HttpClient;
let browser: ChromiumPool | undefined;
const SECRET = 'hunter2pass';
const withCreds = (path: string, port = site.port) => `http://user:${SECRET}@127.0.0.1:${port}${path}`;
beforeAll(async () => {
  site = await startFixtureServer({
    '/hang': () => undefined,
    '/err': (_req, res) =>
      void res.writeHead(500, { 'content-type': 'text/html' }).end('<html><body>broken</body></html>'),
  });
  http = new HttpClient({ allowPrivateNetwork: true });
  if (findChromium()) browser = new ChromiumPool({ http });
});
afterAll(async () => {
  await browser?.close();
  await http?.close();
  await site?.close();
});

const detailOf = (p: Promise<unknown>) =>
  p.then(
    () => 'no error',
    (e: { detail?: string; code?: string }) => `${e.code}: ${e.detail}`,
  );

describe('credentials in error details', () => {
  it('HTTP: a timeout, a refused connection and an HTTP error name the URL without them', async () => {
    const fetchers = { http };
    for (const [url, code] of [
      [withCreds('/hang'), 'timeout'],
      [withCreds('/x', 1), 'fetch_failed'],
      [withCreds('/err'), 'fetch_failed'],
    ] as const) {
      const d = await detailOf(fetchPage(fetchers, url, { timeoutMs: 500, render: 'http' }));
      expect(d).toMatch(new RegExp(`^${code}: `));
      expect(d).not.toContain(SECRET);
      expect(d).toContain('127.0.0.1');
    }
  });

  it.skipIf(!findChromium())(
    'browser: a timeout, a Chromium load error and an HTTP error name the URL without them',
    async () => {
      const fetchers = { http, browser };
      for (const url of [withCreds('/hang'), withCreds('/x', 1), withCreds('/err')]) {
        const d = await detailOf(fetchPage(fetchers, url, { timeoutMs: 1500, render: 'browser' }));
        expect(d).not.toBe('no error');
        expect(d).not.toContain(SECRET);
      }
    },
    30_000,
  );
});
