/**
 * npm run bench:jobs — the jobs issue's figures on local sites, against the real service
 * (compiled, its own process, SQLite):
 *  - map of a site whose robots.txt points at a sitemap index of 10 gzip children, 50,000 URLs
 *    in all: seconds for POST /v1/map (limit 30,000; target < 3 s), next to a naive peer measured
 *    in the same run (sequential fetch + gunzip + regex of the same files, no service around it).
 * (Async crawl and batch scrape figures join this bench with those endpoints.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ROOT, trawlCli, waitHealthy } from './lib/service.js';

const URLS = Number(process.env.BENCH_MAP_URLS ?? 50_000);
const CHILDREN = 10;
const PORT = 3931;

const site = createServer();
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
const per = Math.ceil(URLS / CHILDREN);
const children = Array.from({ length: CHILDREN }, (_, c) =>
  gzipSync(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Array.from({ length: per }, (_, i) => `<url><loc>${base}/products/item-${c * per + i}</loc><lastmod>2026-11-01</lastmod></url>`).join('')}</urlset>`),
);
const index = `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${children.map((_, c) => `<sitemap><loc>${base}/sitemaps/part-${c}.xml.gz</loc></sitemap>`).join('')}</sitemapindex>`;
site.on('request', (req, res) => {
  const path = req.url ?? '/';
  if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nSitemap: ${base}/sitemaps/index.xml\n`);
  if (path === '/sitemaps/index.xml') return void res.writeHead(200, { 'content-type': 'application/xml' }).end(index);
  const m = /^\/sitemaps\/part-(\d+)\.xml\.gz$/.exec(path);
  if (m) return void res.writeHead(200, { 'content-type': 'application/gzip' }).end(children[Number(m[1])]);
  if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><a href="/products/item-1">First</a><a href="/about">About</a></body></html>');
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
const env = { ...process.env, TRAWL_DATA_DIR: dataDir, TRAWL_ALLOW_PRIVATE_NETWORK: '1', PORT: String(PORT), HOST: '127.0.0.1', DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' };
await trawlCli(['account', 'create', '--email', 'bench@local', '--credits', '100000'], env);
const { key } = JSON.parse(await trawlCli(['keys', 'create', '--email', 'bench@local'], env));
const server: ChildProcess = spawn(process.execPath, [join(ROOT, 'bin/trawl.js'), 'serve'], { env, stdio: 'ignore' });
try {
  await waitHealthy(`http://127.0.0.1:${PORT}`);
  const map = async () => {
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${PORT}/v1/map`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ url: `${base}/`, limit: 30_000 }) });
    const body = (await res.json()) as { links: unknown[]; total: number };
    return { seconds: (performance.now() - t0) / 1000, links: body.links.length, total: body.total, status: res.status };
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
  console.log(`  trawl POST /v1/map (limit 30000): ${ours.toFixed(2)} s — ${runs[0].links} links, total ${runs[0].total}, HTTP ${runs[0].status}  (target < 3 s)`);
  console.log(`  naive sequential fetch + gunzip + regex: ${theirs.toFixed(2)} s — ${peers[0].urls} URLs`);
  console.log(`  ratio (trawl / naive time): ${(ours / theirs).toFixed(2)}x`);
} finally {
  server.kill('SIGTERM');
  site.close();
  setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 500);
}
