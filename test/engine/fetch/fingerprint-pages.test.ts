/**
 * An outside attack (issue 42) found: the patched WebGL getParameter is a named function
 * expression `function getParameter(p)`, whose name inside its body is itself, not the saved
 * native method: every parameter but the two unmasked ones (VERSION, MAX_TEXTURE_SIZE, VENDOR …)
 * recurses until "Maximum call stack size exceeded". WebGL pages (maps, charts, three.js) break,
 * and any fingerprinting script that reads a few parameters sees it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumPool, findChromium } from '../../../src/engine/fetch/browser.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { fetchPage, type Fetchers } from '../../../src/engine/fetch/page.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

const chromium = findChromium();

describe.skipIf(!chromium)('fingerprint patches on ordinary pages: WebGL getParameter in a render', () => {
  let site: FixtureServer;
  let http: HttpClient;
  let fetchers: Fetchers;
  beforeAll(async () => {
    site = await startFixtureServer({
      '/': `<html><head><title>GL</title></head><body><article><h1>GL</h1>
        <p>A public article about kettles, long enough to be the page's main content for the extractor to keep.</p>
        <p id="out">gl:</p>
        <script>
          const out = document.getElementById('out');
          const gl = document.createElement('canvas').getContext('webgl');
          for (const p of ['VERSION', 'VENDOR', 'MAX_TEXTURE_SIZE']) {
            try { out.textContent += ' ' + p + '=' + gl.getParameter(gl[p]); } catch (e) { out.textContent += ' ' + p + '-THREW-' + e.name; }
          }
        </script></article></body></html>`,
      '/perm': `<html><head><title>Perm</title></head><body><article><h1>Perm</h1>
        <p>A public article about kettles, long enough to be the page's main content for the extractor to keep.</p>
        <p id="out">perm:</p>
        <script>
          const out = document.getElementById('out');
          for (const name of ['notifications', 'geolocation']) {
            navigator.permissions.query({ name }).then((s) => { out.textContent += ' ' + name + '=' + s.state; },
              (e) => { out.textContent += ' ' + name + '-THREW-' + e.name; });
          }
        </script></article></body></html>`,
      '/phone': `<html><head><title>Phone</title></head><body><article><h1>Phone</h1>
        <p>A public article about kettles, long enough to be the page's main content for the extractor to keep.</p>
        <p id="out">phone:</p>
        <script>
          const out = document.getElementById('out');
          const gl = document.createElement('canvas').getContext('webgl');
          const d = gl.getExtension('WEBGL_debug_renderer_info');
          out.textContent += JSON.stringify({ outerFits: outerWidth <= screen.width && outerHeight <= screen.height,
            plugins: navigator.plugins.length, pdf: navigator.pdfViewerEnabled,
            vendor: gl.getParameter(d.UNMASKED_VENDOR_WEBGL), renderer: gl.getParameter(d.UNMASKED_RENDERER_WEBGL) });
        </script></article></body></html>`,
    });
    http = new HttpClient({ allowPrivateNetwork: true });
    fetchers = { http, browser: new ChromiumPool({ http }) };
  });
  afterAll(async () => {
    await fetchers?.browser?.close();
    await http?.close();
    await site?.close();
  });

  it('gl.getParameter(VERSION / VENDOR / MAX_TEXTURE_SIZE) answers as in Chrome', async () => {
    const page = await fetchPage(fetchers, site.url, { render: 'browser', timeoutMs: 15_000 });
    expect(page.text).not.toMatch(/gl:[^<]*THREW/);
    expect(page.text).toMatch(/VERSION=WebGL 1\.0/);
    expect(page.text).toMatch(/MAX_TEXTURE_SIZE=\d+/);
  }, 30_000);

  it('navigator.permissions.query answers (notifications agreeing with Notification.permission; any other name)', async () => {
    const page = await fetchPage(fetchers, `${site.url}/perm`, { render: 'browser', timeoutMs: 15_000, waitFor: 500 });
    // The patched query throws synchronously (RangeError, recursion): the page's script stops, nothing is written.
    expect(page.text).toMatch(/perm:[^<]*notifications=prompt/);
    expect(page.text).toMatch(/perm:[^<]*geolocation=prompt/);
  }, 30_000);

  it('mobile: the window fits the screen, no desktop PDF plugins, WebGL vendor agrees with the renderer', async () => {
    const page = await fetchPage(fetchers, `${site.url}/phone`, {
      render: 'browser',
      timeoutMs: 15_000,
      setup: { mobile: true },
    });
    const seen = JSON.parse(/phone:(\{.*?\})</.exec((page.text ?? '').replace(/&quot;/g, '"'))![1]);
    expect(seen.outerFits).toBe(true);
    expect(seen.plugins).toBe(0);
    expect(seen.pdf).toBe(false);
    expect(seen.renderer).toMatch(/Qualcomm|Adreno/);
    expect(seen.vendor).not.toMatch(/Intel/);
  }, 30_000);
});
