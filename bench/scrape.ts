/**
 * npm run bench:scrape — /v1/scrape throughput with autocannon against a local ~30 KB
 * article: the real service (compiled, its own process, SQLite, auth + rate limit + credits
 * + usage log on every request) next to a naive peer in the same run: a bare Fastify
 * route that fetches with undici and converts with Turndown (no auth, no billing).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { trawlCli } from './lib/service.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

function article(): string {
  const para = (i: number) =>
    `<p>Paragraph ${i} of the benchmark article explains, in ordinary sentences, how a crawler fetches a page, finds its main content, and turns it into markdown that a language model can read without the navigation, the cookie banner or the footer getting in the way.</p>`;
  const nav = Array.from({ length: 40 }, (_, i) => `<li><a href="/section/${i}">Section ${i}</a></li>`).join('');
  const body = Array.from(
    { length: 105 },
    (_, i) => (i % 10 === 0 ? `<h2>Part ${i / 10 + 1}</h2>` : '') + para(i),
  ).join('\n');
  return `<!doctype html><html lang="en"><head><title>Benchmark article</title><meta name="description" content="A 30 KB page"></head>
<body><header><nav><ul>${nav}</ul></nav></header><main><article><h1>Benchmark article</h1>${body}</article></main>
<footer><p>© Bench</p></footer></body></html>`;
}

async function waitFor(url: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

const cli = trawlCli;

async function load(url: string, headers: Record<string, string>, body: string) {
  const r = await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, duration: DURATION });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
    total: r.requests.total,
  };
}

const html = article();
const site = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
const sitePort = (site.address() as AddressInfo).port;
const target = `http://127.0.0.1:${sitePort}/article`;

const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-'));
const env = {
  ...process.env,
  TRAWL_DATA_DIR: dataDir,
  TRAWL_ALLOW_PRIVATE_NETWORK: '1',
  PORT: '3917',
  HOST: '127.0.0.1',
  DATABASE_URL: '',
  LOG_LEVEL: 'warn',
  TRAWL_MAX_CONNECTIONS_PER_IP: '0',
};
await cli(['account', 'create', '--email', 'bench@local', '--credits', '10000000'], env);
await cli(['account', 'limits', '--email', 'bench@local', '--rate-limit-ceiling', '10000000'], env);
const { key } = JSON.parse(await cli(['keys', 'create', '--email', 'bench@local', '--rate-limit', '10000000'], env));
const server: ChildProcess = spawn(process.execPath, [join(ROOT, 'bin/trawl.js'), 'serve'], { env, stdio: 'ignore' });
let peer: ChildProcess | undefined;
try {
  await waitFor('http://127.0.0.1:3917/healthz');
  const body = JSON.stringify({ url: target, render: 'http' });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  // Warm-up, then the measured run.
  await autocannon({
    url: 'http://127.0.0.1:3917/v1/scrape',
    method: 'POST',
    headers,
    body,
    connections: 8,
    duration: 2,
  });
  const ours = await load('http://127.0.0.1:3917/v1/scrape', headers, body);

  peer = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/lib/naive-scrape-server.ts')], {
    env: { ...process.env, PORT: '3918' },
    stdio: 'ignore',
  });
  await waitFor('http://127.0.0.1:3918/healthz');
  await autocannon({ url: 'http://127.0.0.1:3918/scrape', method: 'POST', headers, body, connections: 8, duration: 2 });
  const naive = await load('http://127.0.0.1:3918/scrape', headers, body);

  console.log(
    `article: ${(Buffer.byteLength(html) / 1024).toFixed(1)} KB, ${CONNECTIONS} connections, ${DURATION} s each, 2 cores shared by load generator, target and server`,
  );
  const row = (name: string, r: Awaited<ReturnType<typeof load>>) =>
    `${name.padEnd(40)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${String(r.p50).padStart(4)} ms  p99 ${String(r.p99).padStart(4)} ms  errors/non-2xx ${r.errors}`;
  console.log(row('trawl /v1/scrape (auth+limits+credits)', ours));
  console.log(row('naive fastify + undici + turndown', naive));
  console.log(`ratio (trawl / naive): ${(ours.rps / naive.rps).toFixed(2)}x`);
} finally {
  server.kill('SIGTERM');
  peer?.kill('SIGTERM');
  site.close();
  setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 500);
}
