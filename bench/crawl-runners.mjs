/**
 * The two crawlers of `npm run bench:crawl`, each run by bench/crawl.ts in its own process
 * under plain `node` — as each runs in production (compiled JavaScript, no TypeScript
 * loader: tsx's loader thread alone adds ~40 MB of RSS to whichever process it is in).
 *   node bench/crawl-runners.mjs trawl|crawlee|crawlee-memory BASE_URL   → posts a Result to the parent
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const PAGES = Number(process.env.BENCH_PAGES ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
/**
 * With BENCH_WARM=1 each crawler first crawls the site's separate warm-up section (/w/,
 * BENCH_WARM_PAGES pages) in the same process, untimed: the timed crawl then runs on
 * compiled, warmed-up code, as in a service that has been up for a while — steady state,
 * where a cold process also pays its JIT compiler on the first pages.
 */
const WARM = process.env.BENCH_WARM === '1';
const WARM_PAGES = Number(process.env.BENCH_WARM_PAGES ?? 300);
const warmNote = WARM ? ', after warm-up' : '';

/**
 * CPU time (user + system, ms) of each of this process's threads, by thread id — Linux only
 * (an empty map elsewhere). Per-thread CPU is steadier than throughput on a shared VM, and
 * says where a difference is: the main thread, the document workers, or V8's helper threads
 * (parallel GC, the optimising compiler).
 */
function threadCpu() {
  const out = new Map();
  let tids;
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      // utime + stime, in clock ticks of 10 ms (USER_HZ is 100 on Linux).
      out.set(tid, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/** CPU time (user + system) this process spent since `from`, in ms. */
function cpuMs(from) {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

async function runTrawl(base) {
  // The compiled engine, as `trawl serve` runs it (npm run bench:crawl builds first) — or
  // another checkout's build (BENCH_TRAWL_DIST, the baseline of an A/B run: see crawl.ts).
  const dist = process.env.BENCH_TRAWL_DIST
    ? `${pathToFileURL(resolve(process.env.BENCH_TRAWL_DIST)).href}/`
    : new URL('../dist/', import.meta.url).href;
  const { crawl } = await import(`${dist}engine/crawl/index.js`);
  const { HttpClient } = await import(`${dist}engine/fetch/http.js`);
  const { DocumentPool } = await import(`${dist}engine/document/pool.js`);
  const http = new HttpClient({ allowPrivateNetwork: true });
  // As `trawl serve` runs it: a document worker per spare core (BENCH_WORKERS overrides; 0 = inline).
  // BENCH_WARM_UP=N: N passes of each worker's start-up warm-up instead of the default (0 =
  // none; see src/engine/document/warm-up.ts).
  const passes = process.env.BENCH_WARM_UP ? Number(process.env.BENCH_WARM_UP) : undefined;
  const noWarmUp = passes === 0;
  const before = threadCpu();
  const documents = new DocumentPool({
    size: process.env.BENCH_WORKERS ? Number(process.env.BENCH_WORKERS) : undefined,
    warmUpPasses: passes,
  });
  const nursery = /--max-semi-space-size=(\d+)/.exec(process.env.NODE_OPTIONS ?? '')?.[1];
  const name = `trawl${process.env.BENCH_TRAWL_DIST ? ' BASELINE' : ''} (markdown on, ${documents.size} doc worker${documents.size === 1 ? '' : 's'}${nursery ? `, ${nursery} MB nursery` : ''}${noWarmUp && documents.size ? ', no warm-up' : ''}${warmNote})`;
  // The service's pool is started with the service, long before a crawl arrives: wait for
  // its workers to load (~100 ms) and warm up (~0.2 s of a spare core, reported as
  // warmUpMs) so the crawl is timed as it runs there. The main thread starts cold.
  await documents.process('<p>ready</p>', { url: `${base}/` });
  const warmUpMs = await documents.ready();
  const site = (url, limit) =>
    crawl(
      { http, documents },
      {
        url,
        maxDepth: 10,
        limit,
        concurrency: CONCURRENCY,
        useSitemap: false,
        formats: ['markdown'],
        timeoutMs: 600_000,
      },
    );
  if (WARM) await site(`${base}/w/0`, WARM_PAGES);
  // Threads started with the pool are its workers (V8's helper threads are the process's).
  const workerTids = new Set([...threadCpu().keys()].filter((t) => !before.has(t)));
  const threads0 = threadCpu();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await site(`${base}/`, PAGES);
  const ms = performance.now() - t0;
  const threads = { main: 0, workers: 0, other: 0 };
  for (const [tid, t] of threadCpu()) {
    const d = t - (threads0.get(tid) ?? 0);
    if (tid === String(process.pid)) threads.main += d;
    else if (workerTids.has(tid)) threads.workers += d;
    else threads.other += d;
  }
  await http.close();
  await documents.close();
  const chars = r.pages.reduce((n, p) => n + (p.markdown?.length ?? 0), 0);
  if (chars < r.pages.length * 1000) throw new Error('trawl produced too little markdown');
  return {
    name,
    pages: r.pages.length,
    ms,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    cpuMs: cpuMs(cpu0),
    warmUpMs,
    threads: threads0.size ? threads : undefined,
  };
}

/**
 * Crawlee as it ships (`inMemory` false): its default configuration persists the request
 * queue to its storage folder (a fresh temporary one here). With `inMemory` it keeps the
 * queue in memory only (`persistStorage: false`), its leanest configuration.
 */
async function runCrawlee(base, inMemory) {
  const storage = mkdtempSync(join(tmpdir(), 'crawlee-'));
  process.env.CRAWLEE_STORAGE_DIR = storage;
  const { CheerioCrawler, Configuration, RequestQueue } = await import('@crawlee/cheerio');
  const config = inMemory
    ? new Configuration({ persistStorage: false, purgeOnStart: true })
    : Configuration.getGlobalConfig();
  let pages = 0;
  // Crawlee's defaults otherwise (its autoscaled pool grows towards the maximum).
  const crawler = (limit, more = {}) =>
    new CheerioCrawler(
      {
        maxConcurrency: CONCURRENCY,
        maxRequestsPerCrawl: limit,
        async requestHandler({ $, enqueueLinks }) {
          pages++;
          void $('title').text();
          await enqueueLinks({ strategy: 'same-hostname' });
        },
        ...more,
      },
      config,
    );
  if (WARM) {
    // Its own request queue, so the timed crawl starts from an empty default queue.
    await crawler(WARM_PAGES, { requestQueue: await RequestQueue.open('warm-up', { config }) }).run([`${base}/w/0`]);
    pages = 0;
  }
  const timed = crawler(PAGES);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await timed.run([`${base}/`]);
  const ms = performance.now() - t0;
  rmSync(storage, { recursive: true, force: true });
  return {
    name: `crawlee CheerioCrawler${inMemory ? ' (in-memory queue' : ' (defaults'}${warmNote})`,
    pages,
    ms,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    cpuMs: cpuMs(cpu0),
  };
}

const [role, base] = process.argv.slice(2);
const runners = {
  trawl: () => runTrawl(base),
  crawlee: () => runCrawlee(base, false),
  'crawlee-memory': () => runCrawlee(base, true),
};
const result = await runners[role]?.();
if (!result) throw new Error(`unknown crawler ${role}`);
process.send(result);
process.exit(0);
