/**
 * npm run bench:hostile — what hostile pages do to the running service (compiled, its own
 * process, SQLite, one document worker as on this 2-core machine). Pages are generated here
 * and served from 127.0.0.1:
 *  1. each hostile page alone through POST /v1/scrape: time and status;
 *  2. a normal 1 KB page's p50/p99 latency (timeout_ms 5000) while 12 hostile scrapes are
 *     kept in flight (target: p99 < 1 s);
 *  3. service RSS while 16 scrapes of 9 MB pages run at once, peak, and idle 5 s later
 *     (targets: < 600 MB peak, < 250 MB idle).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { trawlCli } from './lib/service.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const PORT = 3941;
const BASE = `http://127.0.0.1:${PORT}`;

const NORMAL = `<!doctype html><html><head><title>Normal page</title></head><body><article><h1>Normal page</h1><p>A short article with a sentence or two, commas, and a full stop, as most pages are.</p></article></body></html>`;
const HOSTILE: Record<string, () => string> = {
  '200,000 nested <div> (closed)': () => `<html><body>${'<div>'.repeat(200_000)}x${'</div>'.repeat(200_000)}`,
  '200,000 nested <div> (unclosed)': () => `<html><body>${'<div>'.repeat(200_000)}x`,
  '20,000 × <p><b><i><span><div><a><table><tr><td><li><ul>text': () =>
    `<html><body>${'<p><b><i><span><div><a><table><tr><td><li><ul>text'.repeat(20_000)}`,
  '50,000 nested <ul><li>': () => `<html><body>${'<ul><li>'.repeat(50_000)}x`,
  '50,000 nested <b><i>': () => `<html><body>${'<b><i>'.repeat(50_000)}x`,
  '20,000 siblings classed price (schema {price})': () =>
    `<html><body><h1>Item</h1>${Array.from({ length: 20_000 }, (_, i) => `<div class="price p${i}">$${i}.99</div>`).join('')}`,
};
const schemaFor = (name: string) => (name.includes('price') ? { price: 'number' } : undefined);
const NINE_MB = (() => {
  const para =
    '<p>Nine megabytes of ordinary article text, sentence after sentence, with commas, clauses and full stops, to fill the page. </p>\n';
  return `<!doctype html><html><head><title>Large page</title></head><body><article><h1>Large page</h1>${para.repeat(Math.floor((9 * 1024 * 1024) / para.length))}</article></body></html>`;
})();

const pages = new Map<string, string>([
  ['/normal', NORMAL],
  ['/nine-mb', NINE_MB],
]);
Object.values(HOSTILE).forEach((make, i) => pages.set(`/hostile/${i}`, make()));
const site = createServer((req, res) => {
  const body = pages.get(req.url ?? '');
  if (!body) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
});
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
const SITE = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

const dataDir = mkdtempSync(join(tmpdir(), 'trawl-hostile-'));
const env = {
  ...process.env,
  TRAWL_DATA_DIR: dataDir,
  PORT: String(PORT),
  HOST: '127.0.0.1',
  DATABASE_URL: '',
  REDIS_URL: '',
  LOG_LEVEL: 'error',
  TRAWL_ALLOW_PRIVATE_NETWORK: '1',
  TRAWL_RATE_LIMIT_PER_MINUTE: '1000000',
};
const cli = (args: string[]) => trawlCli(args, env);
await cli(['account', 'create', '--email', 'bench@local', '--credits', '1000000']);
const { key } = JSON.parse(await cli(['keys', 'create', '--email', 'bench@local', '--rate-limit', '1000000']));
const server = spawn(process.execPath, [join(ROOT, 'bin/trawl.js'), 'serve'], { env, stdio: 'ignore' });
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

const scrape = async (path: string, extra: Record<string, unknown> = {}, signal?: AbortSignal) => {
  const t = performance.now();
  try {
    const res = await fetch(`${BASE}/v1/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ url: `${SITE}${path}`, ...extra }),
      signal,
    });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - t };
  } catch {
    return { status: 0, ms: performance.now() - t };
  }
};
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${BASE}/healthz`)).ok) break;
    } catch {
      if (i > 300) throw new Error('service did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await new Promise((r) => setTimeout(r, 500)); // the worker's warm-up
  console.log(`service idle after start: ${rss().toFixed(0)} MB RSS`);

  console.log('\n1. each hostile page alone (POST /v1/scrape)');
  const names = Object.keys(HOSTILE);
  for (let i = 0; i < names.length; i++) {
    const schema = schemaFor(names[i]);
    const r = await scrape(`/hostile/${i}`, schema ? { schema } : {});
    console.log(
      `   ${names[i].padEnd(58)} ${(pages.get(`/hostile/${i}`)!.length / 1e6).toFixed(2)} MB  ${String(r.status).padStart(3)}  ${r.ms.toFixed(0).padStart(6)} ms`,
    );
  }

  console.log('\n2. a normal page while 12 hostile scrapes are in flight');
  const stop = new AbortController();
  let hostileDone = 0;
  const flood = Array.from({ length: 12 }, async (_, k) => {
    for (let j = k; !stop.signal.aborted; j++) {
      const i = j % names.length;
      const schema = schemaFor(names[i]);
      await scrape(`/hostile/${i}`, schema ? { schema } : {}, stop.signal);
      hostileDone++;
    }
  });
  await new Promise((r) => setTimeout(r, 1000));
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  for (let n = 0; n < 60; n++) {
    const r = await scrape('/normal', { timeout_ms: 5000 });
    latencies.push(r.ms);
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    await new Promise((res) => setTimeout(res, 50));
  }
  stop.abort();
  await Promise.allSettled(flood);
  console.log(
    `   60 normal scrapes: p50 ${pct(latencies, 50).toFixed(0)} ms, p99 ${pct(latencies, 99).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms; statuses ${JSON.stringify(Object.fromEntries(statuses))}; ${hostileDone} hostile scrapes answered meanwhile (target p99 < 1000 ms)`,
  );

  console.log('\n3. 16 concurrent scrapes of a 9 MB page');
  await new Promise((r) => setTimeout(r, 3000));
  const before = rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 25);
  const t0 = performance.now();
  const big = await Promise.all(Array.from({ length: 16 }, () => scrape('/nine-mb', { timeout_ms: 120_000 })));
  const took = performance.now() - t0;
  clearInterval(sampler);
  const codes = new Map<number, number>();
  for (const r of big) codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
  await new Promise((r) => setTimeout(r, 5000));
  const idle = rss();
  console.log(
    `   RSS before ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, idle 5 s after ${idle.toFixed(0)} MB; statuses ${JSON.stringify(Object.fromEntries(codes))}; all answered in ${(took / 1000).toFixed(1)} s (targets < 600 MB peak, < 250 MB idle)`,
  );
} finally {
  server.kill('SIGTERM');
  site.close();
  setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 300);
}
