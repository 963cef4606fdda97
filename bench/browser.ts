/**
 * npm run bench:browser — `render: "browser"` latency on a local page with sub-resources (a
 * stylesheet, two scripts, eight images, one fetch), interleaved in rounds in one process:
 *  - trawl: ChromiumPool as the service runs it (every byte through the guarded proxy);
 *  - route-hook: the guard as it was before issue 26 (Playwright's route hook asking the guard
 *    per request, no proxy) — the "before" figure;
 *  - bare: Playwright with no guard at all (the floor).
 * Each render is a fresh context on one shared browser per configuration, as in the service.
 * Prints medians, p90 and the ratios to both peers.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { ChromiumPool, findChromium } from '../src/engine/fetch/browser.js';
import { HttpClient } from '../src/engine/fetch/http.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const PER_ROUND = Number(process.env.BENCH_RENDERS ?? 5);
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--mute-audio'];

const pixel = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const para = (i: number) => `<p>Paragraph ${i}: a rendered page fetches its scripts, styles and pictures, and each of them goes through the browser's proxy.</p>`;
const page = `<!doctype html><html><head><title>Render bench</title><link rel="stylesheet" href="/s.css"><script src="/a.js"></script><script src="/b.js" defer></script></head>
<body><main><h1>Render bench</h1>${Array.from({ length: 40 }, (_, i) => para(i)).join('')}
${Array.from({ length: 8 }, (_, i) => `<img src="/img${i}.png" alt="">`).join('')}<p id="late"></p>
<script>fetch('/data.json').then((r) => r.json()).then((d) => { document.getElementById('late').textContent = d.text; });</script></main></body></html>`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];

async function main() {
  if (!findChromium()) throw new Error('bench:browser needs Chromium (apt install chromium, or CHROMIUM_PATH)');
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    if (path.endsWith('.css')) return void res.writeHead(200, { 'content-type': 'text/css' }).end('body{font-family:sans-serif}p{margin:1em}');
    if (path.endsWith('.js')) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end('window.x = (window.x || 0) + 1;');
    if (path.endsWith('.png')) return void res.writeHead(200, { 'content-type': 'image/png' }).end(pixel);
    if (path === '/data.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"written by fetch"}');
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;

  // Trawl: the site under a pinned public name, guard on, as an operator's TRAWL_RESOLVE pin.
  const http = new HttpClient({ resolve: [{ host: 'bench.test', address: '127.0.0.1', port }] });
  const pool = new ChromiumPool({ http });
  const launch = () => chromium.launch({ executablePath: findChromium(), args: ARGS, headless: true });
  const [hookBrowser, bareBrowser]: Browser[] = await Promise.all([launch(), launch()]);
  const guardAllowingLoopback = new HttpClient({ allowPrivateNetwork: true });

  const direct = async (browser: Browser, hook: boolean) => {
    const context = await browser.newContext();
    try {
      if (hook) {
        await context.route('**/*', async (route) => {
          try {
            // The old guard: a DNS check per request (loopback allowed here, so it passes).
            await guardAllowingLoopback.checkTarget(route.request().url());
            await route.continue();
          } catch {
            await route.abort('blockedbyclient');
          }
        });
      }
      const p = await context.newPage();
      await p.goto(`http://127.0.0.1:${port}/`, { waitUntil: 'load' });
      await p.waitForLoadState('networkidle', { timeout: 3000 }).catch(() => undefined);
      return await p.content();
    } finally {
      await context.close();
    }
  };
  const configs: Record<string, () => Promise<string>> = {
    trawl: async () => (await pool.render('http://bench.test/', { timeoutMs: 20_000 })).html,
    'route-hook': () => direct(hookBrowser, true),
    bare: () => direct(bareBrowser, false),
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(configs).map((k) => [k, []]));
  for (const name of Object.keys(configs)) {
    const html = await configs[name](); // warm-up, and check the page really rendered
    if (!html.includes('written by fetch')) throw new Error(`${name}: the page did not render fully`);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(configs)) {
      for (let i = 0; i < PER_ROUND; i++) {
        const t = performance.now();
        await run();
        times[name].push(performance.now() - t);
      }
    }
  }
  const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
  console.log(`render: "browser" on a local page with 12 sub-resources, ${ROUNDS} interleaved rounds × ${PER_ROUND} renders each (main process RSS ${rss} MB)`);
  for (const [name, xs] of Object.entries(times)) console.log(`  ${name.padEnd(11)} median ${median(xs).toFixed(1)} ms, p90 ${p90(xs).toFixed(1)} ms`);
  const m = (k: string) => median(times[k]);
  console.log(`  trawl / route-hook (before issue 26): ${(m('trawl') / m('route-hook')).toFixed(2)}×; trawl / bare Playwright: ${(m('trawl') / m('bare')).toFixed(2)}×`);
  await pool.close();
  await Promise.all([hookBrowser.close(), bareBrowser.close()]);
  await Promise.all([http.close(), guardAllowingLoopback.close()]);
  server.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
