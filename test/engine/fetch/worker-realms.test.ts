/**
 * Worker realms (issue 42): a page's dedicated Worker and SharedWorker read the browser's
 * identity too — `navigator.userAgent`, `userAgentData` and an OffscreenCanvas's WebGL — and a
 * fingerprinting script compares them with the page's (CreepJS and the commercial detectors do).
 * Headless Chromium showed "HeadlessChrome" and SwiftShader there while the page said Chrome.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumPool, findChromium } from '../../../src/engine/fetch/browser.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { fetchPage, type Fetchers } from '../../../src/engine/fetch/page.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

const chromium = findChromium();

/** What a realm reports of itself (run in the page and in each worker). */
const REPORT = `async function report() {
  const d = navigator.userAgentData;
  const hints = d ? await d.getHighEntropyValues(['platform', 'fullVersionList', 'architecture']).catch(() => ({})) : {};
  let gl = null;
  try {
    const c = new OffscreenCanvas(4, 4).getContext('webgl');
    const e = c && c.getExtension('WEBGL_debug_renderer_info');
    gl = e ? c.getParameter(e.UNMASKED_VENDOR_WEBGL) + ' | ' + c.getParameter(e.UNMASKED_RENDERER_WEBGL) : 'no-webgl';
  } catch (err) { gl = 'threw ' + err.name; }
  return { ua: navigator.userAgent, brands: d ? d.brands.map((b) => b.brand).join(',') : null,
    mobile: d ? d.mobile : null, platform: d ? d.platform : null, full: (hints.fullVersionList || []).map((b) => b.brand).join(','),
    languages: navigator.languages.join(','), gl };
}`;

const PAGE = `<html><head><title>Realms</title></head><body><article><h1>Realms</h1>
  <p>A public article about kettles, long enough to be the page's main content for the extractor to keep.</p>
  <pre id="out"></pre>
  <script>${REPORT}
    const seen = {};
    const show = () => { if (Object.keys(seen).length === 3) document.getElementById('out').textContent = 'REALMS' + JSON.stringify(seen) + 'END'; };
    report().then((r) => { seen.page = r; show(); });
    const w = new Worker('/worker.js');
    w.onmessage = (e) => { seen.worker = e.data; show(); };
    w.onerror = () => { seen.worker = 'error'; show(); };
    try {
      const s = new SharedWorker('/shared.js');
      s.port.onmessage = (e) => { seen.shared = e.data; show(); };
      s.onerror = () => { seen.shared = 'error'; show(); };
    } catch (e) { seen.shared = 'threw ' + e.name; show(); }
  </script></article></body></html>`;

const js = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) =>
  void res.writeHead(200, { 'content-type': 'text/javascript' }).end(body);

describe.skipIf(!chromium)('worker realms show the identity the page shows', () => {
  let site: FixtureServer;
  let http: HttpClient;
  let fetchers: Fetchers;
  beforeAll(async () => {
    site = await startFixtureServer({
      '/': PAGE,
      '/worker.js': js(`${REPORT}\nreport().then((r) => postMessage(r));`),
      '/shared.js': js(
        `${REPORT}\nonconnect = (e) => { const p = e.ports[0]; report().then((r) => p.postMessage(r)); };`,
      ),
    });
    http = new HttpClient({ allowPrivateNetwork: true });
    fetchers = { http, browser: new ChromiumPool({ http }) };
  });
  afterAll(async () => {
    await fetchers?.browser?.close();
    await http?.close();
    await site?.close();
  });

  const realms = async (mobile: boolean) => {
    const page = await fetchPage(fetchers, site.url, {
      render: 'browser',
      timeoutMs: 20_000,
      waitFor: '#out:not(:empty)',
      setup: mobile ? { mobile: true, location: { country: 'DE' } } : undefined,
    });
    const m = /REALMS(\{.*\})END/.exec((page.text ?? '').replace(/&quot;/g, '"'));
    expect(m, page.text).toBeTruthy();
    return JSON.parse(m![1]) as Record<string, Record<string, unknown>>;
  };

  for (const mobile of [false, true])
    it(`a dedicated Worker agrees with the page; a SharedWorker says Chrome (${mobile ? 'mobile, DE' : 'desktop'})`, async () => {
      const seen = await realms(mobile);
      const r = seen.worker;
      expect(r).toBeTypeOf('object');
      for (const k of ['ua', 'brands', 'full', 'platform', 'mobile', 'languages', 'gl'])
        expect(r[k], k).toEqual(seen.page[k]);
      expect(String(r.gl)).not.toMatch(/SwiftShader/i);
      expect(String(r.brands)).toMatch(/Google Chrome/);
      // A shared worker is held until it has the identity too, but another DevTools client's detach
      // can start it first: what is sure is the browser's own User-Agent, Chrome's (desktop).
      expect(seen.shared).toBeTypeOf('object');
      expect(seen.shared.ua).not.toMatch(/Headless/);
      if (!mobile) expect(seen.shared.ua).toBe(seen.page.ua);
    }, 40_000);
});
