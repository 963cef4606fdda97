/**
 * The document pool's jobs and worker slots, its options, and the measured constants it is
 * tuned by (pool.ts).
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { SchemaObject } from '../extract/schema.js';
import type { PdfOptions } from './pdf.js';
import type { PooledOptions } from './processor.js';

/** What a job sends to its worker (worker.ts). */
export interface WorkerJob {
  id: number;
  source: string;
  options: PooledOptions;
  /** A PDF to convert instead of a page (`source` is then empty). */
  pdf?: { bytes: Uint8Array; options: PdfOptions };
  schema?: SchemaObject;
  marketplace?: { id: string; mode: 'basic' | 'rich' };
}

/** A job as the pool holds it: what its worker is sent, and what schedules and settles it. */
export interface Job extends WorkerJob {
  /** Size of the page, for shortest-first scheduling. */
  size: number;
  /** Whose job: workers are shared fairly between owners. */
  owner: string;
  queuedAt: number;
  deadline?: number;
  signal?: AbortSignal;
  /** With a Processed page, or a PdfMarkdown for a PDF job. */
  resolve(r: unknown): void;
  reject(e: Error): void;
}

export interface Slot {
  worker: Worker;
  /** Jobs posted to the worker, in the order it runs them: the first is running. */
  jobs: Job[];
  /** When the running job started. */
  startedAt: number;
  /** Fires when the running job is over its budget. */
  watchdog?: NodeJS.Timeout;
  /** Why the pool is stopping this worker: the running job fails with it; the rest run again. */
  stopping?: Error;
  /** Settles when the worker has finished its warm-up (or died): its duration in ms. */
  warm: Promise<number>;
  /** The worker's heap after its last page, in bytes. */
  heap?: number;
  /** Its heap once warmed up: what a fresh worker holds. */
  freshHeap?: number;
  /** The worker's memory outside its heap (ArrayBuffers: pdf.js's) after its last PDF, in bytes. */
  external?: number;
  idleTimer?: NodeJS.Timeout;
}

export interface DocumentPoolOptions {
  /** Worker threads. @default two for every three cores, at most 4 (none on one core; 0 = process inline) */
  size?: number;
  /** The worker script. @default the compiled `worker.js` next to this module */
  workerUrl?: URL;
  /** The most time one page may take to process; past it its worker is stopped and the page fails. @default 30000 */
  jobTimeoutMs?: number;
  /** Passes over a sample page each new worker makes to compile the pipeline (0 = none). @default 40 */
  warmUpPasses?: number;
  /** Heap limit of each worker in MB: a page whose tree outgrows it fails alone. @default 1024 */
  workerHeapMb?: number;
  /**
   * Large pages (> 256 KiB) processed at once: their trees take hundreds of MB, so they do not
   * fill every worker; small pages use them all. @default workers − 1, at least 1
   */
  largeAtOnce?: number;
  /** Start an express worker for small pages when the others are busy with large or slow ones. @default true */
  express?: boolean;
  /** What one PDF's streams may inflate to (pdf.ts); jobs that set their own keep it. @default 128 MiB */
  pdfMaxInflatedBytes?: number;
  /** How long a worker grown past a fresh one's heap may idle before it is replaced. @default 10000 */
  restedIdleMs?: number;
  /** How long a large page may run before small pages behind it go to the express worker. @default 200 */
  largeSlowMs?: number;
}

/**
 * Worker young generation: a page is short-lived garbage, but its tree lives until the page
 * is done. Below 16 MB (V8 splits it into semi-spaces) a page's live tree overflows the
 * nursery mid-page and is promoted, and old-generation collections follow: on bench:crawl's
 * pages one worker ran its pipeline at 1.2–1.5 ms per page with 8 or 12 MB against 0.51 with
 * 16, 24, 32 or V8's own default (isolated worker, alternating runs); through the pool, two
 * workers, 0.65–1.03 vs 0.37–0.67 ms per page. 32 MB was no faster and held 7–24 MB more.
 */
export const YOUNG_GENERATION_MB = 16;
/** Passes of a new worker's warm-up (warm-up.ts). Measured on bench:crawl: the pipeline's hot functions are optimised after ~30–40; 100 bought nothing more. */
export const WARM_UP_PASSES = 40;
/** Crashes tolerated before the pool stops replacing workers and goes inline. */
export const MAX_RESTARTS = 3;
/**
 * Small pages a worker holds at once: posted ahead so it never waits for a busy main thread
 * between pages (with 2, bench:scrape ran at 0.6 of its throughput: the worker idled while
 * the main thread answered requests; with 8, a cold bench:crawl ran ~9 % slower than with
 * 32, which holds a whole crawl's concurrency). A large page is posted only to an idle worker.
 */
export const PER_WORKER = 32;
/**
 * Shortest-first with ageing: each second a job waits counts as this many bytes less. A 1 KB
 * page overtakes every large one; a 5 MB page waits at most ~2.5 s behind small ones.
 */
export const AGEING_BYTES_PER_SECOND = 2_000_000;
/** A worker whose heap has grown past this is replaced once idle. */
export const RECYCLE_HEAP_BYTES = 64 * 1024 * 1024;
/**
 * A worker holding more than this outside its heap after a job (a PDF's inflated streams,
 * collected or not) is replaced as soon as it has nothing else to do, before another job lands
 * on it: collecting gives the buffers back only when V8 gets to it, and pdf.js keeps caches of
 * its own; a fresh thread starts empty.
 */
export const RECYCLE_EXTERNAL_BYTES = 64 * 1024 * 1024;
/** How long a worker with a grown heap must sit idle before it is replaced. */
export const RECYCLE_IDLE_MS = 1_000;
/**
 * A worker whose heap is this far past a fresh one's (pdf.js loaded, a mid-sized page's tree
 * kept by V8) is replaced once idle for RESTED_IDLE_MS: an idle service gives its memory back.
 * (bench:abuse, 40 PDF bombs then rest: the service stayed at 293 MB, 252 with idle workers
 * replaced, from 197 at start; a small PDF leaves a worker ~17 MB past fresh.)
 */
export const RECYCLE_GROWTH_BYTES = 8 * 1024 * 1024;
/** Long enough that a steady trickle of PDFs or pages keeps its warm worker (pdf.js stays loaded). */
export const RESTED_IDLE_MS = 10_000;
/**
 * How long a job whose caller left may run on alone before its worker is stopped: most pages and
 * PDFs end within it (no fresh worker to start), and a caller hanging up again and again gets at
 * most one replaced worker per this long and worker.
 */
export const ABANDONED_GRACE_MS = 2_000;
/** How long the express worker may sit idle before it is stopped (started again on need). */
export const EXPRESS_IDLE_MS = 10_000;
/** Pages up to this size are small: posted ahead to a busy worker, and sent to the express worker rather than wait behind a large page. */
const SMALL_BYTES = 256 * 1024;
/**
 * A running page this old makes small pages behind it go to the express worker. Not less:
 * on a loaded 2-core machine an ordinary page can take 100 ms of wall time, and a second
 * worker started for that cost bench:scrape 40 % of its throughput (measured).
 */
const SLOW_MS = 1_000;
/**
 * A large page running this long makes small pages behind it go to the express worker. Not
 * at once: a real 300 KB–1 MB page takes 5–50 ms, and an express worker started (and warmed
 * up) for each one cost a worker's throughput on the shared article pages ~25 % (first pass
 * at 16 pages in flight, 8.2–10.5 vs 6.6–7.8 ms per page) and 28 MB. A hostile one runs for
 * seconds: small pages wait at most this long behind it.
 */
export const LARGE_SLOW_MS = 200;

/**
 * A job that takes a worker to itself: a large page, or a PDF whatever its size (its cost shows
 * only once its streams inflate: a 204 KB file inflated to 200 MB).
 */
export const heavy = (job: Job) => !!job.pdf || job.size > SMALL_BYTES;

/**
 * A PDF this small may take the express worker, as a small page does, when every worker is held
 * by slow jobs of others: a one-page PDF is a few KB (the bench's is 0.6 KB), while the PDFs that
 * run for seconds are long documents or bombs (a 204 KB file inflating to 200 MB); one that still
 * inflates far is stopped by its inflated-bytes cap and its time budget like any.
 */
const EXPRESS_PDF_BYTES = 64 * 1024;

/** Whether a job may go to the express worker rather than wait behind slow jobs: a small page or a small PDF. */
export const expressable = (job: Job) => (job.pdf ? job.pdf.bytes.byteLength <= EXPRESS_PDF_BYTES : !heavy(job));

/** When the page a busy worker is running starts to hold up the small pages waiting behind it. */
export const blocksAt = (slot: Slot, largeSlowMs: number) =>
  slot.startedAt + (heavy(slot.jobs[0]) ? largeSlowMs : Math.max(SLOW_MS, largeSlowMs));

/**
 * Two workers for every three cores (none on one core, at most 4). The main thread's share of
 * a crawled page (fetch, decode, links) is about half a worker's (0.35–0.47 vs 0.72–0.85 ms
 * per bench:crawl page), so cores − 1 workers left a core half idle: on 2 cores, 2 workers
 * crawled 1,069 pages/s cold and 1,222 in steady state against 962 and 983 with 1 (8
 * alternating runs each), for +20–27 MB peak RSS.
 */
export const defaultDocumentWorkers = () => {
  const cores = availableParallelism();
  return cores <= 1 ? 0 : Math.min(4, Math.ceil((cores * 2) / 3));
};
