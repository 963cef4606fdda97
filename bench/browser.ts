/**
 * npm run bench:browser — two parts (BENCH_PART=render or =issue31 runs one).
 *
 * Issue 31, through the real service (in process, SQLite, guard on, the page under a pinned name):
 *  - a screenshot of a local article (a stylesheet, two pictures), warm (POST /v1/scrape formats
 *    ["screenshot"]): p50 < 400 ms;
 *  - a cache hit (max_age, after one miss): p50 < 20 ms;
 *  - actions (wait 200 ms, click, write, press, scroll, wait 100 ms) against the same render without
 *    them: what they add beyond their own 300 ms of waits.
 *
 * Render: `render: "browser"` latency on a local page with sub-resources (a
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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { ChromiumPool, findChromium } from '../src/engine/fetch/browser.js';
import { HttpClient } from '../src/engine/fetch/http.js';
import { startService } from '../src/runtime.js';
import { accounts, keys } from '../src/store/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const PER_ROUND = Number(process.env.BENCH_RENDERS ?? 5);
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--mute-audio',
];

const pixel = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);
const para = (i: number) =>
  `<p>Paragraph ${i}: a rendered page fetches its scripts, styles and pictures, and each of them goes through the browser's proxy.</p>`;
const page = `<!doctype html><html><head><title>Render bench</title><link rel="stylesheet" href="/s.css"><script src="/a.js"></script><script src="/b.js" defer></script></head>
<body><main><h1>Render bench</h1>${Array.from({ length: 40 }, (_, i) => para(i)).join('')}
${Array.from({ length: 8 }, (_, i) => `<img src="/img${i}.png" alt="">`).join('')}<p id="late"></p>
<script>fetch('/data.json').then((r) => r.json()).then((d) => { document.getElementById('late').textContent = d.text; });</script></main></body></html>`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];

async function main() {
  if (!findChromium()) throw new Error('bench:browser needs Chromium (apt install chromium, or CHROMIUM_PATH)');
  const part = process.env.BENCH_PART;
  if (part !== 'render') await issue31();
  if (part !== 'issue31') await renderComparison();
}

/** A local article: a stylesheet, two pictures, forty paragraphs, no script. */
const ARTICLE = `<!doctype html><html><head><title>Article bench</title><link rel="stylesheet" href="/s.css"></head>
<body><main><h1>Article bench</h1><img src="/img0.png" alt="">${Array.from({ length: 40 }, (_, i) => para(i)).join('')}<img src="/img1.png" alt=""></main></body></html>`;

const ACTIONS_PAGE = `<!doctype html><html><head><title>Actions bench</title></head><body><main><h1>Actions bench</h1>
${Array.from({ length: 30 }, (_, i) => para(i)).join('')}
<button id="more" onclick="document.getElementById('extra').hidden = false">More</button><p id="extra" hidden>Revealed by a click.</p>
<input id="q"><div style="height:3000px"></div></main></body></html>`;

async function issue31() {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/actions') return void res.writeHead(200, { 'content-type': 'text/html' }).end(ACTIONS_PAGE);
    if (path === '/article') return void res.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE);
    if (path === '/cached') return void res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    if (path.endsWith('.css'))
      return void res.writeHead(200, { 'content-type': 'text/css' }).end('body{font-family:sans-serif}p{margin:1em}');
    if (path.endsWith('.png')) return void res.writeHead(200, { 'content-type': 'image/png' }).end(pixel);
    if (path === '/data.json')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"written by fetch"}');
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-browser-'));
  const service = await startService(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      TRAWL_DATA_DIR: dataDir,
      TRAWL_RESOLVE: `bench.test=127.0.0.1:${port}`,
      TRAWL_RATE_LIMIT_PER_MINUTE: '1000000',
    }),
    { logger: false },
  );
  try {
    const acc = await accounts.createAccount(service.store.db, { email: 'bench@test.local', credits: 1_000_000 });
    await accounts.setRateLimitCeiling(service.store.db, acc.id, 1_000_000);
    const { key } = await keys.createApiKey(service.store.db, { accountId: acc.id, rateLimitPerMinute: 1_000_000 });
    const post = async (body: Record<string, unknown>) => {
      const res = await fetch(`${service.url}/v1/scrape`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { screenshot?: string; markdown: string; metadata: { cache?: string } };
      if (res.status !== 200) throw new Error(`scrape answered ${res.status}: ${JSON.stringify(json)}`);
      return json;
    };
    const waits = 300;
    const steps = [
      { type: 'wait', milliseconds: 200 },
      { type: 'click', selector: '#more' },
      { type: 'write', selector: '#q', text: 'kettle' },
      { type: 'press', key: 'Enter' },
      { type: 'scroll', direction: 'down', amount: 800 },
      { type: 'wait', milliseconds: 100 },
    ];
    const runs: Record<string, () => Promise<unknown>> = {
      screenshot: async () => {
        const r = await post({ url: 'http://bench.test/article', formats: ['screenshot'] });
        if (!String(r.screenshot).includes('/v1/files/')) throw new Error('no screenshot');
      },
      'cache hit': async () => {
        const r = await post({ url: 'http://bench.test/cached', max_age: 3_600_000 });
        if (r.metadata.cache !== 'hit') throw new Error('not a cache hit');
      },
      'render, no actions': () => post({ url: 'http://bench.test/actions', render: 'browser' }),
      'render + actions': async () => {
        const r = await post({ url: 'http://bench.test/actions', actions: steps });
        if (!r.markdown.includes('Revealed by a click')) throw new Error('the actions did not run');
      },
    };
    // Warm: Chromium launched, the cache entry stored, every path run once.
    await post({ url: 'http://bench.test/cached', max_age: 3_600_000 });
    for (const run of Object.values(runs)) await run();
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(runs).map((k) => [k, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of Object.entries(runs)) {
        for (let i = 0; i < PER_ROUND; i++) {
          const t = performance.now();
          await run();
          times[name].push(performance.now() - t);
        }
      }
    }
    const line = (name: string, goal?: string) =>
      `  ${name.padEnd(19)} p50 ${median(times[name]).toFixed(1)} ms, p90 ${p90(times[name]).toFixed(1)} ms${goal ? ` (goal: ${goal})` : ''}`;
    console.log(
      `issue 31 through POST /v1/scrape (in process, SQLite, guard on), ${ROUNDS} interleaved rounds × ${PER_ROUND} requests each`,
    );
    console.log(line('screenshot', 'p50 < 400 ms'));
    console.log(line('cache hit', 'p50 < 20 ms'));
    console.log(line('render, no actions'));
    console.log(line('render + actions'));
    const added = median(times['render + actions']) - median(times['render, no actions']);
    const work = steps.length - steps.filter((a) => a.type === 'wait').length;
    console.log(
      `  actions add ${added.toFixed(1)} ms to the render: their own ${waits} ms of waits, and ${(added - waits).toFixed(1)} ms for the ${work} steps that click, type, press and scroll (goal: no wait beyond their own)`,
    );
  } finally {
    await service.close();
    server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function renderComparison() {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    if (path.endsWith('.css'))
      return void res.writeHead(200, { 'content-type': 'text/css' }).end('body{font-family:sans-serif}p{margin:1em}');
    if (path.endsWith('.js'))
      return void res.writeHead(200, { 'content-type': 'text/javascript' }).end('window.x = (window.x || 0) + 1;');
    if (path.endsWith('.png')) return void res.writeHead(200, { 'content-type': 'image/png' }).end(pixel);
    if (path === '/data.json')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"written by fetch"}');
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
  console.log(
    `render: "browser" on a local page with 12 sub-resources, ${ROUNDS} interleaved rounds × ${PER_ROUND} renders each (main process RSS ${rss} MB)`,
  );
  for (const [name, xs] of Object.entries(times))
    console.log(`  ${name.padEnd(11)} median ${median(xs).toFixed(1)} ms, p90 ${p90(xs).toFixed(1)} ms`);
  const m = (k: string) => median(times[k]);
  console.log(
    `  trawl / route-hook (before issue 26): ${(m('trawl') / m('route-hook')).toFixed(2)}×; trawl / bare Playwright: ${(m('trawl') / m('bare')).toFixed(2)}×`,
  );
  await pool.close();
  await Promise.all([hookBrowser.close(), bareBrowser.close()]);
  await Promise.all([http.close(), guardAllowingLoopback.close()]);
  server.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
