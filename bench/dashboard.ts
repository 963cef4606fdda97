/**
 * npm run bench:dashboard — what the overview costs a browser: bytes of JS and CSS it downloads
 * first (decoded, and as sent: gzip), and time to first render in Debian's Chromium on this machine
 * (navigation start → first contentful paint, and → the usage chart drawn), median of 10 loads
 * with a warm service. The service runs in its own process (SQLite).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { findChromium } from '../src/engine/fetch/browser.js';
import { ROOT, waitHealthy } from './lib/service.js';

const PORT = 3935;
const BASE = `http://127.0.0.1:${PORT}`;
const path = findChromium(process.env.CHROMIUM_PATH);
if (!path) {
  console.log('skipped: bench:dashboard needs Chromium (apt-get install chromium, or CHROMIUM_PATH)');
  process.exit(0);
}
const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-dash-'));
const server = spawn(process.execPath, [join(ROOT, 'bin/trawl.js'), 'serve'], {
  env: {
    ...process.env,
    PORT: String(PORT),
    TRAWL_DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    LOG_LEVEL: 'error',
  },
  stdio: 'ignore',
});
try {
  await waitHealthy(BASE);
  // Sign-up opens no session (it answers the same for a taken email): log in after it. The login's
  // scrypt (N=2^17, ~0.3–0.7 s) is paid once here, outside the timed page loads.
  const form = {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'email=bench%40example.com&password=benchmark-password',
  } as const;
  await fetch(`${BASE}/signup`, form);
  const login = await fetch(`${BASE}/login`, form);
  const token = login.headers.get('set-cookie')!.split(';')[0].split('=')[1];
  const browser = await chromium.launch({
    executablePath: path,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--no-first-run',
    ],
  });
  const context = await browser.newContext();
  await context.addCookies([{ name: 'trawl_session', value: token, url: BASE }]);
  const fcp: number[] = [];
  const chart: number[] = [];
  let js = 0;
  let css = 0;
  let wire = 0;
  for (let i = 0; i < 11; i++) {
    const page = await context.newPage();
    const sizes = { js: 0, css: 0, jsWire: 0, cssWire: 0 };
    page.on('response', async (r) => {
      const type = r.headers()['content-type'] ?? '';
      const n = (await r.body().catch(() => Buffer.alloc(0))).length;
      const wire = (
        await r
          .request()
          .sizes()
          .catch(() => ({ responseBodySize: n }))
      ).responseBodySize;
      if (type.includes('javascript')) {
        sizes.js += n;
        sizes.jsWire += wire;
      } else if (type.includes('css')) {
        sizes.css += n;
        sizes.cssWire += wire;
      }
    });
    await page.goto(`${BASE}/`, { waitUntil: 'load' });
    await page.waitForSelector('#chart .uplot');
    const t = await page.evaluate(() => {
      const paint = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN;
      return { paint, now: performance.now() };
    });
    if (i > 0) {
      // The first load fills caches (service and browser); the rest are what a returning user sees.
      fcp.push(t.paint);
      chart.push(t.now);
    } else {
      js = sizes.js;
      css = sizes.css;
      wire = sizes.jsWire + sizes.cssWire;
    }
    await page.close();
  }
  await browser.close();
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
  console.log(
    `overview, first visit: ${(js / 1024).toFixed(1)} KiB JavaScript + ${(css / 1024).toFixed(1)} KiB CSS (${(wire / 1024).toFixed(1)} KiB over the wire, gzip), no build step, no framework`,
  );
  console.log(
    `time to first contentful paint: median ${median(fcp).toFixed(0)} ms; to the usage chart drawn: median ${median(chart).toFixed(0)} ms (10 loads, warm, Chromium ${browser.version()})`,
  );
} finally {
  server.kill();
  rmSync(dataDir, { recursive: true, force: true });
}
