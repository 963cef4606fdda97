/**
 * npm run bench:pdf-bombs — PDF compression bombs against the running service (compiled, its
 * own process, embedded SQLite, its default document workers), from the outside as issue 39's
 * attack did. PDFs are made here and served from 127.0.0.1:
 *  1. account B alone: a small page's and a 626-byte PDF's scrape latency;
 *  2. account A sends one batch of 40 bombs (204 KB files inflating to 200 MB each, 1 credit)
 *     while B scrapes its small page and small PDF in turn: B's latencies and statuses
 *     (targets: page p99 < 500 ms, PDF < 2 s), what A's pages became, service RSS at its peak;
 *  3. RSS each second for 60 s after the batch ended (target: back within 20 % of the start);
 *  4. six 1 GB bombs one after another: RSS after each and 10 s later.
 * `--root DIR` runs another build (a checkout with its own dist/), for before/after figures;
 * BENCH_BOMBS (40) sets the batch's size.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makePdf, makePdfBomb } from '../test/helpers/pdf.js';
import { benchKey, ROOT as HERE, serviceEnv, serveFiles, waitHealthy } from './lib/service.js';

const arg = process.argv.indexOf('--root');
const ROOT = arg > 0 ? resolve(process.argv[arg + 1]) : HERE;
const BOMBS = Number(process.env.BENCH_BOMBS ?? 40);
const PORT = 3943;
const BASE = `http://127.0.0.1:${PORT}`;
const MiB = 2 ** 20;

const SMALL_PAGE = `<!doctype html><html><head><title>Small page</title></head><body><article><h1>Small page</h1><p>A short article with a sentence or two, commas, and a full stop, as most pages are.</p></article></body></html>`;
const files = new Map<string, { type: string; body: Buffer }>([
  ['/page', { type: 'text/html; charset=utf-8', body: Buffer.from(SMALL_PAGE) }],
  ['/small.pdf', { type: 'application/pdf', body: makePdf(['A small PDF of account B', 'with two lines']) }],
  ['/bomb.pdf', { type: 'application/pdf', body: await makePdfBomb(200 * MiB) }],
  ['/gigabomb.pdf', { type: 'application/pdf', body: await makePdfBomb(1024 * MiB) }],
]);
const site = await serveFiles(files);
const SITE = site.url;

const dataDir = mkdtempSync(join(tmpdir(), 'trawl-pdf-bombs-'));
const env = serviceEnv(dataDir, PORT);
const keyFor = (email: string) => benchKey(env, ROOT, email, 1_000_000);
const [keyA, keyB] = [await keyFor('a@local'), await keyFor('b@local')];
const server = spawn(process.execPath, [join(ROOT, 'bin/trawl.js'), 'serve'], { env, stdio: 'ignore' });
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const call = async (key: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
};
const scrape = async (key: string, path: string) => {
  const t = performance.now();
  const r = await call(key, 'POST', '/v1/scrape', { url: `${SITE}${path}` }).catch(() => ({ status: 0, body: null }));
  return { status: r.status, ms: performance.now() - t, body: r.body };
};
const pct = (xs: number[], p: number) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN;
const line = (name: string, xs: { ms: number; status: number }[]) => {
  const ms = xs.map((x) => x.ms);
  const codes = new Map<number, number>();
  for (const x of xs) codes.set(x.status, (codes.get(x.status) ?? 0) + 1);
  return `${name}: ${xs.length}, p50 ${pct(ms, 50).toFixed(0)} ms, p99 ${pct(ms, 99).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms; statuses ${JSON.stringify(Object.fromEntries(codes))}`;
};

try {
  await waitHealthy(BASE);
  await sleep(2000); // the workers' warm-up
  const start = rss();
  console.log(
    `bench:pdf-bombs (${ROOT === HERE ? 'this checkout' : ROOT}) — bomb ${files.get('/bomb.pdf')!.body.length} bytes (200 MB inflated), small PDF ${files.get('/small.pdf')!.body.length} bytes; service idle after start: ${start.toFixed(0)} MB RSS`,
  );

  console.log('\n1. account B alone');
  const alonePage: { ms: number; status: number }[] = [];
  const alonePdf: { ms: number; status: number }[] = [];
  for (let i = 0; i < 10; i++) {
    alonePage.push(await scrape(keyB, '/page'));
    alonePdf.push(await scrape(keyB, '/small.pdf'));
  }
  console.log(`   ${line('small page', alonePage)}\n   ${line('small PDF ', alonePdf)}`);

  console.log(`\n2. account B while account A's batch of ${BOMBS} bombs runs`);
  let peak = rss();
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
  const t0 = performance.now();
  const batch = await call(keyA, 'POST', '/v1/batch/scrape', {
    urls: Array.from({ length: BOMBS }, (_, i) => `${SITE}/bomb.pdf?n=${i}`),
  });
  const jobId = (batch.body?.job as { job_id: string } | undefined)?.job_id;
  if (!jobId) throw new Error(`the batch was not accepted: ${batch.status} ${JSON.stringify(batch.body)}`);
  let job: { state: string; progress: { done: number; failed: number } } | undefined;
  const page: { ms: number; status: number }[] = [];
  const pdf: { ms: number; status: number }[] = [];
  const firstPdf = await scrape(keyB, '/small.pdf');
  pdf.push(firstPdf);
  for (let i = 0; ; i++) {
    job = (await call(keyA, 'GET', `/v1/jobs/${jobId}?limit=1`)).body?.job as typeof job;
    if (!job || !['queued', 'running'].includes(job.state)) break;
    page.push(await scrape(keyB, '/page'));
    if (i % 2 === 1) pdf.push(await scrape(keyB, '/small.pdf'));
    await sleep(100);
  }
  const took = performance.now() - t0;
  clearInterval(sampler);
  // What A's pages became (each a failed page with its error, or an answer).
  const outcomes = new Map<string, number>();
  for (let cursor: string | null | undefined; ;) {
    const r = await call(keyA, 'GET', `/v1/jobs/${jobId}?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    for (const p of (r.body?.pages as { error?: string; detail?: string }[] | undefined) ?? [])
      outcomes.set(p.error ?? 'answered', (outcomes.get(p.error ?? 'answered') ?? 0) + 1);
    cursor = r.body?.next_cursor as string | null | undefined;
    if (!cursor) break;
  }
  console.log(
    `   A's batch: ${job?.state} in ${(took / 1000).toFixed(1)} s, pages ${JSON.stringify(Object.fromEntries(outcomes))}`,
  );
  console.log(
    `   B's first small PDF, sent just after the batch: ${firstPdf.status} in ${firstPdf.ms.toFixed(0)} ms (target < 2000 ms)`,
  );
  console.log(`   ${line('small page', page)} (target p99 < 500 ms)\n   ${line('small PDF ', pdf)} (target < 2000 ms)`);
  console.log(`   service RSS: start ${start.toFixed(0)} MB, peak ${peak.toFixed(0)} MB`);

  console.log('\n3. RSS after the batch');
  let back: number | undefined;
  const samples: string[] = [];
  for (let s = 1; s <= 60; s++) {
    await sleep(1000);
    const now = rss();
    if (back === undefined && now <= start * 1.2) back = s;
    if (s % 10 === 0 || s === 1) samples.push(`${s} s ${now.toFixed(0)} MB`);
  }
  console.log(
    `   ${samples.join(', ')}; within 20 % of the start (${(start * 1.2).toFixed(0)} MB) ${back === undefined ? 'never in 60 s' : `after ${back} s`}`,
  );

  console.log('\n4. six 1 GB bombs, one after another');
  const before = rss();
  const after: string[] = [];
  let gpeak = before;
  const gsampler = setInterval(() => (gpeak = Math.max(gpeak, rss())), 100);
  for (let i = 0; i < 6; i++) {
    const r = await scrape(keyA, `/gigabomb.pdf?n=${i}`);
    after.push(`${r.status} ${(r.ms / 1000).toFixed(1)} s → ${rss().toFixed(0)} MB`);
  }
  clearInterval(gsampler);
  await sleep(10_000);
  console.log(
    `   RSS before ${before.toFixed(0)} MB; each: ${after.join('; ')}; peak ${gpeak.toFixed(0)} MB; idle 10 s after ${rss().toFixed(0)} MB`,
  );
  const detail = (await scrape(keyA, '/gigabomb.pdf?n=last')).body;
  console.log(`   a bomb's answer: ${JSON.stringify(detail)}`);
} finally {
  server.kill('SIGTERM');
  site.close();
  setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 300);
}
