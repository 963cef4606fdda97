/**
 * npm run bench:jobs — the jobs issue's figures on local sites, against the real service
 * (compiled, its own process, SQLite):
 *  - map of a site whose robots.txt points at a sitemap index of 10 gzip children, 50,000 URLs
 *    in all: seconds for POST /v1/map (limit 30,000; target < 3 s), next to a naive peer measured
 *    in the same run (sequential fetch + gunzip + regex of the same files, no service around it).
 *  - async crawl of a generated site (BENCH_CRAWL_PAGES, default 2,000; the issue's figure is
 *    20,000) by `trawl serve` + two `trawl worker`s on PostgreSQL and Redis, next to Crawlee's
 *    CheerioCrawler (bench/crawl-runners.mjs, its defaults, same concurrency 16) on the same site
 *    in the same run: pages/s and the ratio; peak RSS of every process at 1,000 pages and at the
 *    end (VmHWM), Crawlee's at the end;
 *  - batch scrape of 1,000 URLs of that site: pages/s.
 *  - synchronous crawl (POST /v1/crawl, limit 1,000, the embedded SQLite service: it runs as a
 *    job on the service's own runner), three rounds, next to Crawlee on 1,000 pages of the same site;
 *    BENCH_BASELINE=DIR (a built checkout of another commit) runs that build's service too,
 *    alternated in the same rounds.
 * BENCH_MODES (map,crawl,sync) picks parts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { Redis } from 'ioredis';
import type { Job } from '../sdk/typescript/src/types.js';
import { ROOT, trawlCli, waitHealthy } from './lib/service.js';

const MODES = (process.env.BENCH_MODES ?? 'map,crawl').split(',');
const CRAWL_PAGES = Number(process.env.BENCH_CRAWL_PAGES ?? 2000);
const PG_ADMIN = process.env.TRAWL_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TRAWL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const rss = (pid: number, field: 'VmHWM' | 'VmRSS') => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};
/** CPU seconds (user + system) a process has used, 0 once it is gone. */
const cpuOf = (pid: number) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
};
/** CPU seconds of every process whose command is `comm` (PostgreSQL's backends, Redis). */
const cpuOfCommand = (comm: string) =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .reduce((n, d) => {
      try {
        return readFileSync(`/proc/${d}/comm`, 'utf8').trim() === comm ? n + cpuOf(Number(d)) : n;
      } catch {
        return n;
      }
    }, 0);
/** Page i of the crawl site: ~8 KB of text, links to the next pages (all reachable) and to random ones. */
function crawlPage(i: number): string {
  let x = (i * 2654435761) >>> 0;
  const rnd = () => (x = (x * 1664525 + 1013904223) >>> 0) % CRAWL_PAGES;
  const links = [...[1, 2, 3].map((k) => (i + k) % CRAWL_PAGES), ...Array.from({ length: 12 }, rnd)]
    .map((t) => `<a href="/p/${t}">Page ${t}</a>`)
    .join(' ');
  const para = `<p>Page ${i} of the benchmark site describes how a crawler reads pages, follows their links and writes their content as markdown for a language model to read.</p>`;
  return `<!doctype html><html><head><title>Page ${i}</title></head><body><nav>${links}</nav><main><h1>Page ${i}</h1>${para.repeat(40)}</main></body></html>`;
}

const URLS = Number(process.env.BENCH_MAP_URLS ?? 50_000);
const CHILDREN = 10;
const PORT = 3931;

const site = createServer();
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
const per = Math.ceil(URLS / CHILDREN);
const children = Array.from({ length: CHILDREN }, (_, c) =>
  gzipSync(
    `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Array.from({ length: per }, (_, i) => `<url><loc>${base}/products/item-${c * per + i}</loc><lastmod>2026-11-01</lastmod></url>`).join('')}</urlset>`,
  ),
);
const index = `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${children.map((_, c) => `<sitemap><loc>${base}/sitemaps/part-${c}.xml.gz</loc></sitemap>`).join('')}</sitemapindex>`;
site.on('request', (req, res) => {
  const path = req.url ?? '/';
  if (path === '/robots.txt')
    return void res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end(`User-agent: *\nSitemap: ${base}/sitemaps/index.xml\n`);
  if (path === '/sitemaps/index.xml') return void res.writeHead(200, { 'content-type': 'application/xml' }).end(index);
  const m = /^\/sitemaps\/part-(\d+)\.xml\.gz$/.exec(path);
  if (m) return void res.writeHead(200, { 'content-type': 'application/gzip' }).end(children[Number(m[1])]);
  if (path === '/')
    return void res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<html><body><a href="/products/item-1">First</a><a href="/about">About</a><a href="/p/0">Pages</a></body></html>',
      );
  const p = /^\/p\/(\d+)(?:\?.*)?$/.exec(path);
  if (p && Number(p[1]) < CRAWL_PAGES)
    return void res.writeHead(200, { 'content-type': 'text/html' }).end(crawlPage(Number(p[1])));
  res.writeHead(404).end();
});

const naive = async () => {
  const t0 = performance.now();
  const robots = await (await fetch(`${base}/robots.txt`)).text();
  const idx = await (await fetch(/Sitemap:\s*(\S+)/i.exec(robots)![1])).text();
  const out = new Set<string>();
  for (const loc of idx.matchAll(/<loc>([^<]+)<\/loc>/g)) {
    const xml = gunzipSync(Buffer.from(await (await fetch(loc[1])).arrayBuffer())).toString('utf8');
    for (const u of xml.matchAll(/<loc>([^<]+)<\/loc>/g)) out.add(u[1]);
  }
  return { seconds: (performance.now() - t0) / 1000, urls: out.size };
};

const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-jobs-'));
const env = {
  ...process.env,
  TRAWL_DATA_DIR: dataDir,
  TRAWL_ALLOW_PRIVATE_NETWORK: '1',
  PORT: String(PORT),
  HOST: '127.0.0.1',
  DATABASE_URL: '',
  REDIS_URL: '',
  LOG_LEVEL: 'warn',
};
await trawlCli(['account', 'create', '--email', 'bench@local', '--credits', '100000'], env);
const { key } = JSON.parse(await trawlCli(['keys', 'create', '--email', 'bench@local'], env));
const server: ChildProcess = spawn(
  process.execPath,
  [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), join(ROOT, 'bin/trawl.js'), 'serve'],
  { env, stdio: 'ignore' },
);
try {
  await waitHealthy(`http://127.0.0.1:${PORT}`);
  if (MODES.includes('map')) await benchMap();
  if (MODES.includes('sync')) await benchSync();
} finally {
  server.kill('SIGTERM');
}
if (MODES.includes('crawl')) await benchCrawl();
site.close();
setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 500);

async function benchMap() {
  const map = async () => {
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${PORT}/v1/map`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ url: `${base}/`, limit: 30_000 }),
    });
    const body = (await res.json()) as { links: unknown[]; total: number };
    return {
      seconds: (performance.now() - t0) / 1000,
      links: body.links.length,
      total: body.total,
      status: res.status,
    };
  };
  await map(); // warm-up (first parse compiles)
  const runs = [];
  const peers = [];
  for (let i = 0; i < 3; i++) {
    runs.push(await map());
    peers.push(await naive());
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ours = med(runs.map((r) => r.seconds));
  const theirs = med(peers.map((r) => r.seconds));
  console.log(`map: sitemap index of ${CHILDREN} gzip children, ${URLS} URLs (median of 3, after one warm-up)`);
  console.log(
    `  trawl POST /v1/map (limit 30000): ${ours.toFixed(2)} s — ${runs[0].links} links, total ${runs[0].total}, HTTP ${runs[0].status}  (target < 3 s)`,
  );
  console.log(`  naive sequential fetch + gunzip + regex: ${theirs.toFixed(2)} s — ${peers[0].urls} URLs`);
  console.log(`  ratio (trawl / naive time): ${(ours / theirs).toFixed(2)}x`);
}

/** Crawlee on `pages` pages of the crawl site (bench/crawl-runners.mjs, concurrency 16). */
function crawlee(pages: number): Promise<{ pages: number; ms: number; maxRssMb: number; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const child = fork(join(ROOT, 'bench/crawl-runners.mjs'), ['crawlee', `${base}`], {
      env: { ...process.env, BENCH_PAGES: String(pages), BENCH_CONCURRENCY: '16' },
      execArgv: [],
    });
    child.once('message', (m) => resolve(m as { pages: number; ms: number; maxRssMb: number; cpuMs: number }));
    child.once('exit', (code) => code && reject(new Error(`crawlee runner exited ${code}`)));
  });
}

async function benchSync() {
  const PAGES = 1000;
  const crawl = async (port: number, k: string) => {
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/v1/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${k}` },
      body: JSON.stringify({
        url: `${base}/p/0`,
        max_depth: 10,
        limit: PAGES,
        use_sitemap: false,
        timeout_ms: 300_000,
      }),
    });
    const body = (await res.json()) as { total: number; errors: unknown[] };
    return { pages: body.total, errors: body.errors?.length ?? -1, s: (performance.now() - t0) / 1000 };
  };
  // The other build, on its own port and data directory.
  const baseDir = process.env.BENCH_BASELINE;
  let other: { child: ChildProcess; port: number; key: string; dir: string } | undefined;
  if (baseDir) {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-jobs-base-'));
    const bEnv = { ...env, TRAWL_DATA_DIR: dir, PORT: String(PORT + 1) };
    await trawlCli(['account', 'create', '--email', 'bench@local', '--credits', '1000'], bEnv, baseDir);
    const k = JSON.parse(await trawlCli(['keys', 'create', '--email', 'bench@local'], bEnv, baseDir)).key as string;
    const child = spawn(process.execPath, [join(baseDir, 'bin/trawl.js'), 'serve'], { env: bEnv, stdio: 'ignore' });
    other = { child, port: PORT + 1, key: k, dir };
    await waitHealthy(`http://127.0.0.1:${PORT + 1}`);
  }
  try {
    await crawl(PORT, key); // warm-up
    if (other) await crawl(other.port, other.key);
    const ours: number[] = [];
    const theirs: number[] = [];
    let last = { pages: 0, errors: 0 };
    for (let i = 0; i < 3; i++) {
      const r = await crawl(PORT, key);
      last = r;
      ours.push(r.pages / r.s);
      if (other) {
        const b = await crawl(other.port, other.key);
        theirs.push(b.pages / b.s);
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const peer = process.env.BENCH_PEER === '0' ? undefined : await crawlee(PAGES);
    const peerRate = peer ? peer.pages / (peer.ms / 1000) : NaN;
    console.log(`synchronous crawl of ${PAGES} pages (embedded service, SQLite; median of 3 after a warm-up):`);
    console.log(
      `  trawl POST /v1/crawl (a job on the service's runner): ${med(ours).toFixed(0)} pages/s (${last.pages} pages, ${last.errors} errors)`,
    );
    if (other)
      console.log(
        `  baseline build ${baseDir}: ${med(theirs).toFixed(0)} pages/s; ratio ${(med(ours) / med(theirs)).toFixed(2)}x`,
      );
    if (peer)
      console.log(
        `  crawlee CheerioCrawler on ${peer.pages} pages: ${peerRate.toFixed(0)} pages/s; ratio (trawl / crawlee) ${(med(ours) / peerRate).toFixed(2)}x`,
      );
  } finally {
    other?.child.kill('SIGTERM');
    if (other) setTimeout(() => rmSync(other.dir, { recursive: true, force: true }), 500);
  }
}

function launch(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; line: string }> {
  // BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles Trawl's processes.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, 'bin/trawl.js'), '--json', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d) => resolve({ child, line: String(d).split('\n')[0] }));
    child.once('exit', (code) => reject(new Error(`trawl ${args[0]} exited (${code})`)));
  });
}

async function benchCrawl() {
  const dbName = `trawl_bench_jobs_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const dbUrl = new URL(PG_ADMIN);
  dbUrl.pathname = `/${dbName}`;
  const prefix = `trawl-bench-jobs-${process.pid}`;
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-jobs-so-'));
  const soEnv = {
    ...process.env,
    TRAWL_DATA_DIR: dir,
    TRAWL_ALLOW_PRIVATE_NETWORK: '1',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: dbUrl.href,
    REDIS_URL,
    TRAWL_QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'error',
    TRAWL_ACCOUNT_CONCURRENCY: process.env.BENCH_ACCOUNT_CONCURRENCY ?? '64',
  };
  await trawlCli(['account', 'create', '--email', 'bench@local', '--credits', '1000'], soEnv);
  await trawlCli(['account', 'limits', '--email', 'bench@local', '--rate-limit-ceiling', '100000'], soEnv);
  const { key: soKey } = JSON.parse(
    await trawlCli(['keys', 'create', '--email', 'bench@local', '--rate-limit', '100000'], soEnv),
  );
  const procs = [await launch(['serve'], soEnv), await launch(['worker'], soEnv), await launch(['worker'], soEnv)];
  const api = JSON.parse(procs[0].line).url as string;
  const call = async (method: string, path: string, body?: unknown) =>
    (await (
      await fetch(`${api}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${soKey}` },
        body: body ? JSON.stringify(body) : undefined,
      })
    ).json()) as { job: Job };
  const waitJob = async (id: string, at1000?: (pids: number[]) => void) => {
    let sampled = false;
    for (;;) {
      const j = (await call('GET', `/v1/jobs/${id}?limit=1`)).job;
      if (!sampled && at1000 && j.progress.done + j.progress.failed >= 1000) {
        sampled = true;
        at1000(procs.map((p) => p.child.pid!));
      }
      if (j.state !== 'queued' && j.state !== 'running') return j;
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  try {
    let at1000: number[] = [];
    // CPU per page: load-independent where pages/s is not (the machine may be shared).
    const cpu = () => [
      ...procs.map((p) => cpuOf(p.child.pid!)),
      cpuOfCommand('postgres'),
      cpuOfCommand('redis-server'),
    ];
    const cpu0 = cpu();
    // Round trips per page: the store's transactions and Redis's commands over the crawl.
    const stats = async () => {
      const a = new pg.Client({ connectionString: PG_ADMIN });
      await a.connect();
      const x = await a.query('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1', [
        dbName,
      ]);
      await a.end();
      const r = new Redis(REDIS_URL);
      const info = await r.info('commandstats');
      await r.quit();
      const cmds = [...info.matchAll(/calls=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
      return [Number(x.rows[0].n), cmds];
    };
    const stats0 = await stats();
    const t0 = performance.now();
    const id = (
      await call('POST', '/v1/crawl', {
        url: `${base}/p/0`,
        async: true,
        max_depth: 10,
        limit: CRAWL_PAGES,
        use_sitemap: false,
      })
    ).job.job_id;
    const job = await waitJob(id, (pids) => (at1000 = pids.map((pid) => Math.round(rss(pid, 'VmRSS')))));
    const crawlS = (performance.now() - t0) / 1000;
    const cpuUsed = cpu().map((c, i) => c - cpu0[i]);
    const trips = (await stats()).map((c, i) => c - stats0[i]);
    const peaks = procs.map((p) => Math.round(rss(p.child.pid!, 'VmHWM')));
    const urls = Array.from({ length: 1000 }, (_, i) => `${base}/p/${i % CRAWL_PAGES}?b=${i}`);
    const t1 = performance.now();
    const bid = (await call('POST', '/v1/batch/scrape', { urls })).job.job_id;
    const batch = await waitJob(bid);
    const batchS = (performance.now() - t1) / 1000;
    // A 10,000-URL POST's hold on the service's event loop (the figure test/server/jobs-large-batch
    // asserted in ms until issue 43): the slowest GET /healthz answered while the POST is taken.
    const big = Array.from({ length: 10_000 }, (_, i) => `http://127.0.0.1:9/stall/${i}/${'x'.repeat(170)}`);
    let slowest = 0;
    let posting = true;
    const pings = (async () => {
      while (posting) {
        const t = performance.now();
        await (await fetch(`${api}/healthz`)).arrayBuffer();
        slowest = Math.max(slowest, performance.now() - t);
      }
    })();
    const t2 = performance.now();
    const bigJob = (await call('POST', '/v1/batch/scrape', { urls: big, formats: ['markdown'] })).job;
    const bigMs = performance.now() - t2;
    posting = false;
    await pings;
    await call('DELETE', `/v1/jobs/${bigJob.job_id}`);
    // BENCH_PEER=0: Trawl alone (quick comparisons of Trawl's own settings; no ratio).
    const peer =
      process.env.BENCH_PEER === '0' ? { pages: NaN, ms: NaN, maxRssMb: NaN, cpuMs: NaN } : await crawlee(CRAWL_PAGES);
    const ours = (job.progress.done + job.progress.failed) / crawlS;
    const theirs = peer.pages / (peer.ms / 1000);
    console.log(`async crawl of a ${CRAWL_PAGES}-page local site (~8 KB pages, 15 links each), concurrency 16:`);
    console.log(
      `  trawl (serve + 2 workers, PostgreSQL + Redis, markdown stored per page): ${job.progress.done} done, ${job.progress.failed} failed in ${crawlS.toFixed(1)} s = ${ours.toFixed(0)} pages/s, state ${job.state}`,
    );
    console.log(
      `    RSS at 1,000 pages: ${at1000.join(' / ')} MB; peak at the end: ${peaks.join(' / ')} MB (serve / worker / worker)`,
    );
    const perPage = (s: number) => ((1000 * s) / (job.progress.done + job.progress.failed)).toFixed(1);
    console.log(
      `    CPU per page: ${perPage(cpuUsed.slice(0, 3).reduce((a, b) => a + b))} ms in Trawl (${cpuUsed.slice(0, 3).map(perPage).join(' / ')}), ${perPage(cpuUsed[3])} ms PostgreSQL, ${perPage(cpuUsed[4])} ms Redis; Crawlee ${(peer.cpuMs / peer.pages).toFixed(1)} ms`,
    );
    console.log(
      `    round trips per page: ${perPage(trips[0] / 1000)} PostgreSQL transactions, ${perPage(trips[1] / 1000)} Redis commands`,
    );
    console.log(
      `  crawlee CheerioCrawler (defaults, no markdown): ${peer.pages} pages in ${(peer.ms / 1000).toFixed(1)} s = ${theirs.toFixed(0)} pages/s, peak RSS ${Math.round(peer.maxRssMb)} MB`,
    );
    console.log(`  ratio (trawl / crawlee pages/s): ${(ours / theirs).toFixed(2)}x  (target >= 10x)`);
    console.log(
      `batch scrape of 1,000 URLs: ${batch.progress.done} done, ${batch.progress.failed} failed in ${batchS.toFixed(1)} s = ${(1000 / batchS).toFixed(0)} pages/s`,
    );
    console.log(
      `POST of a 10,000-URL batch (~2 MB): ${bigMs.toFixed(0)} ms; slowest GET /healthz meanwhile ${slowest.toFixed(0)} ms (target < 400 ms)`,
    );
  } finally {
    for (const p of procs) p.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    const a = new pg.Client({ connectionString: PG_ADMIN });
    await a.connect();
    await a.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await a.end();
    const redis = new Redis(REDIS_URL);
    const found = await redis.keys(`${prefix}:*`);
    if (found.length) await redis.del(...found);
    await redis.quit();
    rmSync(dir, { recursive: true, force: true });
  }
}
