/**
 * npm run bench:abuse — issue 39's attacks at once, from outside, against the compiled service in
 * its own process (embedded SQLite, its default document workers), while another account works:
 *  1. account B alone: a small page's and a small PDF's scrape latency; service RSS at rest;
 *  2. account A takes the largest screenshot the service will make (a full page of noise, 3,840
 *     CSS px wide and 40,000 tall): its file's size, the time and memory it took;
 *  3. for BENCH_SECONDS (30) and until A's batch ended, at once: 4 loops downloading that
 *     screenshot (no key needed), 3 senders of the largest body the batch route accepts from a
 *     key whose account has 0 credits, and A's batch of 40 PDF bombs (204 KB, 200 MB inflated) —
 *     while B scrapes its small page and small PDF in turn (targets: page p99 < 500 ms, PDF < 2 s);
 *  4. RSS each second for 60 s after (target: back within 20 % of the start);
 *  5. the file store: its largest file against the cap.
 * `--base DIR` runs a build of another checkout (its own dist/) first, then this one, and prints
 * both side by side (before/after in one run).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { BATCH_BODY_LIMIT, MAX_BATCH_URLS } from '../src/contract/limits.js';
import { makePdf, makePdfBomb } from '../test/helpers/pdf.js';
import { benchKey, ROOT as HERE, serviceEnv, serveFiles, waitHealthy } from './lib/service.js';

const arg = process.argv.indexOf('--base');
const BASE_ROOT = arg > 0 ? resolve(process.argv[arg + 1]) : undefined;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const BOMBS = Number(process.env.BENCH_BOMBS ?? 40);
const MiB = 2 ** 20;
/** Which attacks run (BENCH_ATTACKS=shots,bodies,bombs; all by default): to tell their costs apart. */
const ATTACKS = new Set((process.env.BENCH_ATTACKS ?? 'shots,bodies,bombs').split(','));
const SCREENSHOT_CAP_MB = Number(process.env.TRAWL_SCREENSHOT_MAX_MB ?? 10);

const SMALL_PAGE = `<!doctype html><html><head><title>Small page</title></head><body><article><h1>Small page</h1><p>A short article with a sentence or two, commas, and a full stop, as most pages are.</p></article></body></html>`;
// Random pixels defeat PNG's compression: the largest file a full-page screenshot can make.
const NOISE = `<!doctype html><html><head><title>Noise</title><style>body{margin:0}canvas{display:block}</style></head><body><script>
for (let k = 0; k < 10; k++) {
  const c = document.createElement('canvas'); c.width = 3840; c.height = 4000; document.body.append(c);
  const g = c.getContext('2d'); const img = g.createImageData(3840, 4000); const d = new Uint32Array(img.data.buffer);
  for (let i = 0; i < d.length; i++) d[i] = (Math.random() * 0xffffffff) | 0xff000000;
  g.putImageData(img, 0, 0);
}</script></body></html>`;
const files = new Map<string, { type: string; body: Buffer }>([
  ['/page', { type: 'text/html; charset=utf-8', body: Buffer.from(SMALL_PAGE) }],
  ['/noise', { type: 'text/html; charset=utf-8', body: Buffer.from(NOISE) }],
  ['/small.pdf', { type: 'application/pdf', body: makePdf(['A small PDF of account B', 'with two lines']) }],
  ['/bomb.pdf', { type: 'application/pdf', body: await makePdfBomb(200 * MiB) }],
]);
const site = await serveFiles(files);
const SITE = site.url;

/** The largest batch body accepted: 10,000 URLs as long as the route's byte limit lets them be. */
function hugeBody(): Buffer {
  const urlChars = Math.min(8100, Math.floor((BATCH_BODY_LIMIT - 64 * 1024) / MAX_BATCH_URLS) - 3);
  const pad = 'a'.repeat(Math.max(0, urlChars - `${SITE}/p?`.length - 8));
  const urls = Array.from({ length: MAX_BATCH_URLS }, (_, i) => `${SITE}/p?${String(i).padStart(6, '0')}=${pad}`);
  return Buffer.from(JSON.stringify({ urls }));
}
const BODY = hugeBody();

type Sample = { ms: number; status: number };
const pct = (xs: number[], p: number) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Result {
  aloneP99: number;
  alonePdf: number;
  shot: string;
  shotBytes: number;
  page: Sample[];
  pdf: Sample[];
  downloads: Sample[];
  bodies: Sample[];
  batch: string;
  start: number;
  peak: number;
  back: string;
  largestFile: number;
  dbMb: number;
}

async function run(root: string, port: number): Promise<Result> {
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-abuse-'));
  const env = serviceEnv(dataDir, port);
  const keyFor = (email: string, credits: number) => benchKey(env, root, email, credits);
  const [keyA, keyB, keyBroke] = [
    await keyFor('a@local', 1e6),
    await keyFor('b@local', 1e6),
    await keyFor('c@local', 0),
  ];
  const server = spawn(process.execPath, [join(root, 'bin/trawl.js'), 'serve'], { env, stdio: 'ignore' });
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const call = async (key: string, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(180_000),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an answer read loosely, field by field
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, any> | null };
  };
  const timed = async <T>(work: () => Promise<{ status: number } & T>): Promise<Sample & Partial<T>> => {
    const t = performance.now();
    const r = await work().catch(() => ({ status: 0 }) as { status: number } & T);
    return { ...r, ms: performance.now() - t };
  };
  const scrape = (key: string, path: string) => timed(() => call(key, '/v1/scrape', { url: `${SITE}${path}` }));
  try {
    await waitHealthy(base);
    await sleep(2000); // the document workers' warm-up
    const start = rss();
    const alone: Sample[] = [];
    const alonePdf: Sample[] = [];
    for (let i = 0; i < 20; i++) alone.push(await scrape(keyB, '/page'));
    for (let i = 0; i < 5; i++) alonePdf.push(await scrape(keyB, '/small.pdf'));

    let peak = rss();
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
    const shot = await timed(() =>
      call(keyA, '/v1/scrape', {
        url: `${SITE}/noise`,
        formats: ['screenshot@full_page'],
        viewport: { width: 3840, height: 2160 },
        timeout_ms: 120_000,
      }),
    );
    const shotUrl = shot.body?.screenshot as string | undefined;
    const shotBytes = shotUrl ? (await (await fetch(shotUrl)).arrayBuffer()).byteLength : 0;
    const shotLine = `${shot.status} in ${(shot.ms / 1000).toFixed(1)} s, ${(shotBytes / MiB).toFixed(1)} MB${shot.body?.warnings ? ` (warnings: ${(shot.body.warnings as string[]).length})` : ''}, peak RSS ${peak.toFixed(0)} MB`;

    const until = Date.now() + SECONDS * 1000;
    let batchOver = false;
    // The attackers run in their own process: their load is the service's to bear, not the bystander's.
    const bodyFile = join(dataDir, 'body.json');
    writeFileSync(bodyFile, BODY);
    const attackers = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'bench/lib/attackers.ts')], {
      env: {
        ...process.env,
        BASE: base,
        KEY: keyBroke,
        ...(ATTACKS.has('shots') && shotUrl ? { SHOT_URL: shotUrl } : {}),
        ...(ATTACKS.has('bodies') ? { BODY_FILE: bodyFile } : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let attackOut = '';
    attackers.stdout!.on('data', (d) => (attackOut += d));
    const attackEnded = new Promise((r) => attackers.once('exit', r));
    const t0 = performance.now();
    const batch = await call(keyA, '/v1/batch/scrape', {
      urls: Array.from(
        { length: ATTACKS.has('bombs') ? BOMBS : 1 },
        (_, i) => `${SITE}/${ATTACKS.has('bombs') ? 'bomb' : 'small'}.pdf?n=${i}`,
      ),
    });
    const jobId = batch.body?.job?.job_id as string | undefined;
    const page: Sample[] = [];
    const pdf: Sample[] = [];
    let state = 'none';
    for (let i = 0; Date.now() < until || !batchOver; i++) {
      if (jobId && !batchOver) {
        const j = await fetch(`${base}/v1/jobs/${jobId}?limit=1`, { headers: { authorization: `Bearer ${keyA}` } });
        state = ((await j.json()) as { job: { state: string } }).job.state;
        batchOver = !['queued', 'running'].includes(state);
      } else batchOver = true;
      page.push(await scrape(keyB, '/page'));
      if (i % 2 === 1) pdf.push(await scrape(keyB, '/small.pdf'));
      await sleep(100);
    }
    const batchLine = `${batch.status} ${state} in ${((performance.now() - t0) / 1000).toFixed(1)} s`;
    attackers.kill('SIGTERM');
    await attackEnded;
    const { downloads, bodies } = JSON.parse(attackOut || '{"downloads":[],"bodies":[]}') as {
      downloads: Sample[];
      bodies: Sample[];
    };
    clearInterval(sampler);

    let back = 'never in 60 s';
    for (let s = 1; s <= 60; s++) {
      await sleep(1000);
      if (rss() <= start * 1.2) {
        back = `after ${s} s (${rss().toFixed(0)} MB)`;
        break;
      }
    }
    if (back.startsWith('never')) back += ` (${rss().toFixed(0)} MB)`;
    const db = new Database(join(dataDir, 'trawl.db'), { readonly: true, fileMustExist: true });
    const largestFile = Number((db.prepare('SELECT max(bytes) AS n FROM files').get() as { n: number | null }).n ?? 0);
    db.close();
    const dbMb = statSync(join(dataDir, 'trawl.db')).size / MiB;
    return {
      aloneP99: pct(
        alone.map((x) => x.ms),
        99,
      ),
      alonePdf: pct(
        alonePdf.map((x) => x.ms),
        99,
      ),
      shot: shotLine,
      shotBytes,
      page,
      pdf,
      downloads,
      bodies,
      batch: batchLine,
      start,
      peak,
      back,
      largestFile,
      dbMb,
    };
  } finally {
    server.kill('SIGKILL');
    await sleep(300);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const statuses = (xs: Sample[]) => {
  const m = new Map<number, number>();
  for (const x of xs) m.set(x.status, (m.get(x.status) ?? 0) + 1);
  return [...m].map(([s, n]) => `${n}×${s}`).join(' ');
};
const lat = (xs: Sample[]) => {
  const ms = xs.map((x) => x.ms);
  return `p50 ${pct(ms, 50).toFixed(0)} / p99 ${pct(ms, 99).toFixed(0)} / max ${Math.max(...ms).toFixed(0)} ms (${statuses(xs)})`;
};
const rows = (r: Result): [string, string][] => [
  ['B alone: small page p99 / small PDF p99', `${r.aloneP99.toFixed(0)} / ${r.alonePdf.toFixed(0)} ms`],
  ['A: largest screenshot', r.shot],
  ['during: B small page (target p99 < 500 ms)', lat(r.page)],
  ['during: B small PDF (target < 2000 ms)', lat(r.pdf)],
  ['during: 4 screenshot downloads', lat(r.downloads)],
  [`during: 3 senders of ${(BODY.length / MiB).toFixed(0)} MB bodies, 0 credits`, lat(r.bodies)],
  [`A: batch of ${BOMBS} PDF bombs`, r.batch],
  ['RSS start / peak', `${r.start.toFixed(0)} / ${r.peak.toFixed(0)} MB`],
  ['RSS back within 20 % of start', r.back],
  [
    `file store: largest file (cap ${SCREENSHOT_CAP_MB} MB) / database`,
    `${(r.largestFile / MiB).toFixed(1)} MB / ${r.dbMb.toFixed(1)} MB`,
  ],
];

const runs: [string, Result][] = [];
if (BASE_ROOT) runs.push([`before (${BASE_ROOT})`, await run(BASE_ROOT, 3951)]);
runs.push(['this checkout', await run(HERE, 3952)]);
site.close();
console.log(`bench:abuse — ${benchLine()}\n`);
console.log(`| | ${runs.map(([n]) => n).join(' | ')} |\n|---|${runs.map(() => '---').join('|')}|`);
const table = runs.map(([, r]) => rows(r));
for (let i = 0; i < table[0].length; i++)
  console.log(`| ${table[0][i][0]} | ${table.map((t) => t[i][1]).join(' | ')} |`);

function benchLine() {
  return `${SECONDS} s of attack at least, ${BOMBS} bombs, body ${(BODY.length / MiB).toFixed(1)} MB`;
}
