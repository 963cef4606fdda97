/**
 * Document processing off the main thread: a few worker threads run the same pipeline
 * (`processHtml`, and schema extraction on the same parsed tree when a job asks for it), so
 * a crawl or a busy service parses pages on a second core while the event loop keeps
 * fetching and answering.
 *
 * One page must never stall the others. Jobs wait in one queue, shared fairly between their
 * owners (an owner's k-th waiting job comes after every owner's earlier ones, counting what
 * each already has on the workers), and within an owner's share smallest page first (a
 * waiting page gains priority as it waits, so a large one is not starved). A heavy job — a
 * large page, or any PDF (a small file may inflate to hundreds of MB) — goes only to an idle
 * worker, and only `largeAtOnce` of them run at once unless another owner has none running;
 * small pages are posted a few ahead (so a worker never idles between pages), and small pages
 * that would wait behind a heavy or slow job go to an express worker. A worker that a job left
 * holding much memory outside its heap (pdf.js's buffers) is replaced at once. A page that
 * runs past its budget (the pool's per-document limit, or its request's deadline) is stopped
 * by terminating its worker: only that page fails; the pages posted behind it run again on a
 * fresh worker. A job whose caller gave up (signal aborted) leaves the queue, or is stopped
 * where it runs. A worker that crashes fails only the page it was running. When workers
 * cannot run at all (no compiled worker script, repeated crashes) pages are processed
 * inline, as without a pool.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TrawlError, timeoutError } from '../../errors.js';
import type { ExtractOutput } from '../extract/index.js';
import type { SchemaObject } from '../extract/schema.js';
import type { Document } from './dom.js';
import type { DocumentOptions, DocumentResult } from './index.js';
import type { PdfMarkdown, PdfOptions } from './pdf.js';

export type PooledOptions = Omit<DocumentOptions, 'onDocument'>;

/** A processed page, with what extraction found when a schema was asked for. */
export interface Processed extends DocumentResult {
  extracted?: ExtractOutput;
}

/** A job's limits: its caller's cancellation and its request's deadline (epoch ms), and whose it is. */
export interface JobControl {
  signal?: AbortSignal;
  deadline?: number;
  /** Whose job (an opaque key: the server's owners are accounts); the pool shares its workers fairly between owners. */
  owner?: string;
}

export interface DocumentProcessor {
  /** Runs the pipeline on a page; with an extraction, that too (on the same parsed tree). */
  process(
    source: string,
    options: PooledOptions,
    extraction?: PageExtraction,
    control?: JobControl,
  ): Promise<Processed>;
  /** Converts a PDF to markdown (pdf.ts), under the same limits as a page. */
  processPdf?(bytes: Uint8Array, options: PdfOptions, control?: JobControl): Promise<PdfMarkdown>;
  close(): Promise<void>;
}

/**
 * The processor as one owner's work sees it: its jobs carry `owner`, so the pool shares its
 * workers fairly between owners. Closing it leaves the pool alone (the pool is its maker's).
 */
export function ownedBy(documents: DocumentProcessor, owner: string): DocumentProcessor {
  const processPdf = documents.processPdf?.bind(documents);
  return {
    process: (source, options, extraction, control) =>
      documents.process(source, options, extraction, { ...control, owner }),
    processPdf: processPdf && ((bytes, options, control) => processPdf(bytes, options, { ...control, owner })),
    close: async () => undefined,
  };
}

/**
 * Extraction to run on a page's parsed tree: its schema (sent to a worker as data) and how
 * to run it on this thread. The extractor lives above this module; it hands itself in.
 */
export interface PageExtraction {
  schema: SchemaObject;
  /** A marketplace's product reader instead of the schema (marketplace/index.ts), sent as data. */
  marketplace?: { id: string; mode: 'basic' | 'rich' };
  /** `baseUrl`: where the page's links resolve (its `<base href>`); `url`: the page's own. */
  here(doc: Document, baseUrl: string, source: string, url: string): ExtractOutput;
}

/**
 * The pipeline for one page, extraction included when asked: on the pool when there is
 * one, inline when there is none (or when a processor answered without extracting).
 */
export async function processDocument(
  documents: DocumentProcessor | undefined,
  source: string,
  options: PooledOptions,
  extraction?: PageExtraction,
  control?: JobControl,
): Promise<Processed> {
  if (documents) {
    const r = await documents.process(source, options, extraction, control);
    if (!extraction || r.extracted) return r;
  }
  checkControl(control);
  return processHere(source, options, extraction);
}

/** A PDF to markdown: on the pool when there is one, here otherwise (stopping between pages at the deadline). */
export async function processPdf(
  documents: DocumentProcessor | undefined,
  bytes: Uint8Array,
  options: PdfOptions,
  control?: JobControl,
): Promise<PdfMarkdown> {
  if (documents?.processPdf) return documents.processPdf(bytes, options, control);
  checkControl(control);
  return pdfHere(bytes, { ...options, deadline: control?.deadline });
}

/** The PDF reader on this thread, loaded with pdf.js on the first PDF. */
let pdfReader: Promise<typeof import('./pdf.js')> | undefined;
const pdfHere = async (bytes: Uint8Array, options: PdfOptions) =>
  (await (pdfReader ??= import('./pdf.js'))).pdfToMarkdown(bytes, options);

/** Throws the caller's abort reason, or a timeout once the deadline has passed. */
function checkControl(control: JobControl | undefined): void {
  if (control?.signal?.aborted) throw abortReason(control.signal);
  if (control?.deadline !== undefined && Date.now() >= control.deadline)
    throw timeoutError('the request used its whole time budget before the page was processed');
}

const abortReason = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error('the page was no longer wanted');

/** The pipeline's module, loaded when a page is first processed on this thread (pipeline.ts). */
let pipeline: Promise<typeof import('./pipeline.js')> | undefined;

/**
 * The pipeline on this thread, its result copied off the page source: strings the parser
 * cut from the source (a title, a one-paragraph markdown, an extracted value) would
 * otherwise keep the whole page alive for as long as the result is kept — a crawl keeps a
 * thousand. A worker's results need no copy: they crossed a thread (copying them again cost
 * a crawl ~25 MB).
 */
async function processHere(source: string, options: PooledOptions, extraction?: PageExtraction): Promise<Processed> {
  const { runPipeline } = await (pipeline ??= import('./pipeline.js'));
  return structuredClone(runPipeline(source, options, extraction));
}

interface Job {
  id: number;
  source: string;
  options: PooledOptions;
  /** A PDF to convert instead of a page (`source` is then empty). */
  pdf?: { bytes: Uint8Array; options: PdfOptions };
  schema?: SchemaObject;
  marketplace?: { id: string; mode: 'basic' | 'rich' };
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

interface Slot {
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
const YOUNG_GENERATION_MB = 16;
/** Passes of a new worker's warm-up (warm-up.ts). Measured on bench:crawl: the pipeline's hot functions are optimised after ~30–40; 100 bought nothing more. */
const WARM_UP_PASSES = 40;
/** Crashes tolerated before the pool stops replacing workers and goes inline. */
const MAX_RESTARTS = 3;
/**
 * Small pages a worker holds at once: posted ahead so it never waits for a busy main thread
 * between pages (with 2, bench:scrape ran at 0.6 of its throughput: the worker idled while
 * the main thread answered requests; with 8, a cold bench:crawl ran ~9 % slower than with
 * 32, which holds a whole crawl's concurrency). A large page is posted only to an idle worker.
 */
const PER_WORKER = 32;
/**
 * Shortest-first with ageing: each second a job waits counts as this many bytes less. A 1 KB
 * page overtakes every large one; a 5 MB page waits at most ~2.5 s behind small ones.
 */
const AGEING_BYTES_PER_SECOND = 2_000_000;
/** A worker whose heap has grown past this is replaced once idle. */
const RECYCLE_HEAP_BYTES = 64 * 1024 * 1024;
/**
 * A worker holding more than this outside its heap after a job (a PDF's inflated streams,
 * collected or not) is replaced as soon as it has nothing else to do, before another job lands
 * on it: collecting gives the buffers back only when V8 gets to it, and pdf.js keeps caches of
 * its own; a fresh thread starts empty.
 */
const RECYCLE_EXTERNAL_BYTES = 64 * 1024 * 1024;
/** How long a worker with a grown heap must sit idle before it is replaced. */
const RECYCLE_IDLE_MS = 1_000;
/**
 * A worker whose heap is this far past a fresh one's (pdf.js loaded, a mid-sized page's tree
 * kept by V8) is replaced once idle for RESTED_IDLE_MS: an idle service gives its memory back.
 * (bench:abuse, 40 PDF bombs then rest: the service stayed at 293 MB, 252 with idle workers
 * replaced, from 197 at start; a small PDF leaves a worker ~17 MB past fresh.)
 */
const RECYCLE_GROWTH_BYTES = 8 * 1024 * 1024;
/** Long enough that a steady trickle of PDFs or pages keeps its warm worker (pdf.js stays loaded). */
const RESTED_IDLE_MS = 10_000;
/** How long the express worker may sit idle before it is stopped (started again on need). */
const EXPRESS_IDLE_MS = 10_000;
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
const LARGE_SLOW_MS = 200;

/**
 * A job that takes a worker to itself: a large page, or a PDF whatever its size (its cost shows
 * only once its streams inflate: a 204 KB file inflated to 200 MB).
 */
const heavy = (job: Job) => !!job.pdf || job.size > SMALL_BYTES;

/** When the page a busy worker is running starts to hold up the small pages waiting behind it. */
const blocksAt = (slot: Slot, largeSlowMs: number) =>
  slot.startedAt + (heavy(slot.jobs[0]) ? largeSlowMs : Math.max(SLOW_MS, largeSlowMs));

/**
 * Two workers for every three cores (none on one core, at most 4). The main thread's share of
 * a crawled page (fetch, decode, links) is about half a worker's (0.35–0.47 vs 0.72–0.85 ms
 * per bench:crawl page), so cores − 1 workers left a core half idle: on 2 cores, 2 workers
 * crawled 1,069 pages/s cold and 1,222 in steady state against 962 and 983 with 1 (8
 * alternating runs each), for +20–27 MB peak RSS.
 */
const defaultDocumentWorkers = () => {
  const cores = availableParallelism();
  return cores <= 1 ? 0 : Math.min(4, Math.ceil((cores * 2) / 3));
};

export class DocumentPool implements DocumentProcessor {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  /** The worker for small pages while the others are busy with large or slow ones (0 = none). */
  private express?: Slot;
  private readonly expressSize: number;
  private recheck?: NodeJS.Timeout;
  private nextId = 1;
  private closed = false;
  private restarts = 0;
  private readonly workerUrl: URL;
  private readonly jobTimeoutMs: number;
  private readonly warmUpPasses: number;
  private readonly workerHeapMb: number;
  private readonly largeAtOnce: number;
  private readonly pdfMaxInflatedBytes?: number;
  private readonly restedIdleMs: number;
  private readonly largeSlowMs: number;

  constructor(options: DocumentPoolOptions = {}) {
    this.workerUrl = options.workerUrl ?? new URL('./worker.js', import.meta.url);
    this.jobTimeoutMs = options.jobTimeoutMs ?? 30_000;
    this.warmUpPasses = Math.max(0, options.warmUpPasses ?? WARM_UP_PASSES);
    this.workerHeapMb = options.workerHeapMb ?? 1024;
    this.expressSize = options.express === false ? 0 : 1;
    this.pdfMaxInflatedBytes = options.pdfMaxInflatedBytes;
    this.restedIdleMs = options.restedIdleMs ?? RESTED_IDLE_MS;
    this.largeSlowMs = options.largeSlowMs ?? LARGE_SLOW_MS;
    // Running from TypeScript sources (tests) there is no compiled worker: stay inline.
    const size = existsSync(fileURLToPath(this.workerUrl)) ? Math.max(0, options.size ?? defaultDocumentWorkers()) : 0;
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
    this.largeAtOnce = Math.max(1, options.largeAtOnce ?? size - 1);
  }

  /** Number of live worker threads (0 = pages are processed inline). */
  get size(): number {
    return this.slots.length;
  }

  /** Whether the express worker is running (started for small pages held up behind a slow one). */
  get expressRunning(): boolean {
    return !!this.express && !this.express.stopping;
  }

  /** Jobs waiting for a worker (not yet posted to one). */
  get queued(): number {
    return this.queue.length;
  }

  /** The thread ids of the live workers (the express one aside): a replaced worker has a new one. */
  get threadIds(): number[] {
    return this.slots.map((s) => s.worker.threadId);
  }

  /**
   * Resolves when every worker has finished its warm-up, with the longest one's duration in
   * ms (0 without workers). Nothing needs to wait for it — pages posted before are answered
   * between warm-up passes — but a caller timing the pipeline can.
   */
  async ready(): Promise<number> {
    const waits = this.slots.map((s) => {
      // Waited for, the warm-up keeps the process alive (an idle pool otherwise does not).
      s.worker.ref();
      return s.warm.finally(() => s.jobs.length || s.worker.unref());
    });
    return Math.max(0, ...(await Promise.all(waits)));
  }

  private spawn(): Slot {
    const worker = new Worker(this.workerUrl, {
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB, maxOldGenerationSizeMb: this.workerHeapMb },
      workerData: { warmUpPasses: this.warmUpPasses },
    });
    let warmed!: (ms: number) => void;
    const slot: Slot = { worker, jobs: [], startedAt: 0, warm: new Promise((r) => (warmed = r)) };
    // An idle pool must not keep the process alive.
    worker.unref();
    worker.on(
      'message',
      (m: {
        id: number;
        result?: Processed | PdfMarkdown;
        error?: string;
        warm?: number;
        heap?: number;
        external?: number;
      }) => {
        if (m.warm !== undefined) {
          slot.freshHeap = m.heap;
          return warmed(m.warm);
        }
        if (m.heap !== undefined) slot.heap = m.heap;
        if (m.external !== undefined) slot.external = m.external;
        const i = slot.jobs.findIndex((j) => j.id === m.id);
        if (i < 0) return;
        const [job] = slot.jobs.splice(i, 1);
        this.settle(job);
        // The next job the worker holds starts now.
        if (i === 0) this.startHead(slot);
        if (m.error !== undefined) job.reject(new Error(m.error));
        else job.resolve(m.result!);
        // (Before dispatching: the next job goes to the fresh worker, not to this one.)
        if (!slot.jobs.length && (slot.external ?? 0) > RECYCLE_EXTERNAL_BYTES) this.replace(slot);
        this.dispatch();
        this.recycleIfIdle(slot);
      },
    );
    let gone = false;
    const onGone = (e: Error) => {
      if (gone) return;
      gone = true;
      warmed(0);
      clearTimeout(slot.watchdog);
      const [running, ...rest] = slot.jobs.splice(0);
      if (running) {
        this.settle(running);
        running.reject(
          this.closed
            ? new Error('the document pool is closed')
            : (slot.stopping ??
                (/out of memory/i.test(e.message)
                  ? new TrawlError(
                      'fetch_failed',
                      'the page is too large to process (it needs more memory than a document worker has)',
                      { retryable: false },
                    )
                  : e)),
        );
      }
      // The jobs queued behind it did nothing wrong: they run again, first in line.
      this.queue.unshift(...rest);
      clearTimeout(slot.idleTimer);
      if (slot === this.express) this.express = undefined;
      const i = this.slots.indexOf(slot);
      if (i >= 0 && !this.closed) {
        // A page that was stopped says nothing about the worker; crashes do.
        if (!slot.stopping && ++this.restarts > MAX_RESTARTS) this.slots.splice(i, 1);
        else this.slots[i] = this.spawn();
      }
      if (!this.slots.length) for (const j of this.queue.splice(0)) this.runInline(j);
      else this.dispatch();
    };
    worker.on('error', onGone);
    worker.on('exit', (code) => onGone(new Error(`document worker exited with code ${code}`)));
    return slot;
  }

  /**
   * A worker whose heap a large page grew, once idle for a moment, is replaced by a fresh one
   * (V8 keeps a grown heap long after its pages are garbage); the express worker, idle, just goes.
   */
  private recycleIfIdle(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    if (slot.stopping) return;
    const heap = slot.heap ?? 0;
    const grown = heap > RECYCLE_HEAP_BYTES;
    const rested = slot.freshHeap !== undefined && heap > slot.freshHeap + RECYCLE_GROWTH_BYTES;
    if (slot.jobs.length || (!grown && !rested && slot !== this.express)) return;
    slot.idleTimer = setTimeout(
      () => {
        if (slot.jobs.length || slot.stopping || this.closed) return;
        this.replace(slot);
      },
      grown ? RECYCLE_IDLE_MS : slot === this.express ? EXPRESS_IDLE_MS : this.restedIdleMs,
    );
    slot.idleTimer.unref();
  }

  /** An idle worker goes and a fresh one takes its place (the express worker just goes). */
  private replace(slot: Slot): void {
    if (slot.stopping || this.closed) return;
    clearTimeout(slot.idleTimer);
    slot.stopping = new Error('recycled');
    if (slot === this.express) this.express = undefined;
    else {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots[i] = this.spawn();
    }
    void slot.worker.terminate();
  }

  /** Stop a worker for the job it is running: that job fails with `reason`, the others are re-run. */
  private stop(slot: Slot, reason: Error): void {
    if (slot.stopping) return;
    slot.stopping = reason;
    clearTimeout(slot.watchdog);
    void slot.worker.terminate();
  }

  /** The slot's first job started running now: its budget is the pool's limit or its deadline, whichever comes first. */
  private startHead(slot: Slot): void {
    clearTimeout(slot.watchdog);
    slot.watchdog = undefined;
    const head = slot.jobs[0];
    if (!head) {
      slot.worker.unref();
      return;
    }
    slot.startedAt = Date.now();
    const byDeadline = head.deadline !== undefined && head.deadline - slot.startedAt < this.jobTimeoutMs;
    const budget = Math.max(0, byDeadline ? head.deadline! - slot.startedAt : this.jobTimeoutMs);
    slot.watchdog = setTimeout(
      () =>
        this.stop(
          slot,
          byDeadline
            ? timeoutError('the request used its whole time budget while the page was being processed')
            : timeoutError(`processing the page took longer than ${this.jobTimeoutMs} ms and was stopped`),
        ),
      budget,
    );
    slot.watchdog.unref();
  }

  /** Post queued jobs to workers with room: owners in turn, each one's smallest (aged) page first. */
  private dispatch(): void {
    clearTimeout(this.recheck);
    this.recheck = undefined;
    const now = Date.now();
    let waitingSmall = false;
    for (const job of this.fairOrder(now)) {
      const slot = this.slotFor(job, now);
      if (!slot) {
        if (!heavy(job)) waitingSmall = true;
        continue;
      }
      this.queue.splice(this.queue.indexOf(job), 1);
      slot.jobs.push(job);
      slot.worker.ref();
      if (slot.jobs.length === 1) this.startHead(slot);
      // The schema goes as data; the worker compiles it (once) and extracts there.
      slot.worker.postMessage(
        job.pdf
          ? { id: job.id, pdf: job.pdf }
          : { id: job.id, source: job.source, options: job.options, schema: job.schema, marketplace: job.marketplace },
      );
    }
    // A small page waits behind pages that have only just started: look again once they
    // have run long enough for the express worker to be worth it.
    if (waitingSmall && !this.closed) {
      const at = Math.min(...this.slots.map((s) => (s.jobs.length ? blocksAt(s, this.largeSlowMs) : Infinity)));
      if (Number.isFinite(at)) {
        this.recheck = setTimeout(() => this.dispatch(), Math.max(1, at - now));
        this.recheck.unref();
      }
    }
  }

  /**
   * The queue in the order jobs are offered to the workers. Each owner's jobs by size, aged
   * (each second waiting counts as AGEING_BYTES_PER_SECOND bytes less); an owner's k-th job
   * ranks k after what it already has on the workers, and ranks come first: the one page of an
   * owner with nothing on the workers goes before the 40 PDFs another owner sent at once.
   */
  private fairOrder(now: number): Job[] {
    if (this.queue.length < 2) return [...this.queue];
    const key = (job: Job) => job.size - ((now - job.queuedAt) / 1000) * AGEING_BYTES_PER_SECOND;
    const held = new Map<string, number>();
    for (const s of this.express ? [...this.slots, this.express] : this.slots)
      for (const j of s.jobs) held.set(j.owner, (held.get(j.owner) ?? 0) + 1);
    const byOwner = new Map<string, { job: Job; key: number }[]>();
    for (const job of this.queue) {
      let mine = byOwner.get(job.owner);
      if (!mine) byOwner.set(job.owner, (mine = []));
      mine.push({ job, key: key(job) });
    }
    const ranked: { job: Job; key: number; rank: number }[] = [];
    for (const [owner, mine] of byOwner) {
      mine.sort((a, b) => a.key - b.key);
      const base = held.get(owner) ?? 0;
      mine.forEach((m, k) => ranked.push({ ...m, rank: base + k }));
    }
    if (byOwner.size > 1) ranked.sort((a, b) => a.rank - b.rank || a.key - b.key);
    return ranked.map((r) => r.job);
  }

  /**
   * Where `job` may go now. An idle worker takes any job; a busy one takes a small page
   * behind a small one (pipelined, as a crawl's pages are). A small page that would wait
   * behind a slow job (a hostile one: a heavy job running for LARGE_SLOW_MS, any page for
   * SLOW_MS) goes to the express worker, started on first need.
   */
  private slotFor(job: Job, now: number): Slot | undefined {
    // A heavy job waits while `largeAtOnce` of them run (memory stays as with one worker
    // fewer), unless its owner has none running: then an idle worker is its share.
    if (heavy(job)) {
      const running = this.slots.filter((s) => s.jobs.length && heavy(s.jobs[0]));
      if (running.length >= this.largeAtOnce && running.some((s) => s.jobs[0].owner === job.owner)) return undefined;
    }
    let best: Slot | undefined;
    for (const s of this.slots) {
      if (s.stopping || s.jobs.length >= PER_WORKER) continue;
      if (s.jobs.length && (heavy(job) || heavy(s.jobs[0]))) continue;
      if (!best || s.jobs.length < best.jobs.length) best = s;
    }
    if (best || heavy(job) || this.expressSize === 0) return best;
    const blocked = this.slots.some((s) => s.jobs.length && now >= blocksAt(s, this.largeSlowMs));
    if (!blocked) return undefined;
    if (this.express?.stopping) return undefined;
    this.express ??= this.spawn();
    return this.express.jobs.length < PER_WORKER ? this.express : undefined;
  }

  /** A job is done (answered, failed or cancelled): its signal no longer cancels it. */
  private settle(job: Job): void {
    if (job.signal) this.watched.get(job.signal)?.delete(job);
  }

  /**
   * Jobs by their caller's signal, with one listener per signal for the signal's whole life
   * (a crawl's pages share one), as the fetcher's cancellations do (fetch/http.ts): not added
   * and removed again each time a crawl's pipelined pages all came back. The WeakMap lets a
   * finished crawl's signal go.
   */
  private readonly watched = new WeakMap<AbortSignal, Set<Job>>();
  private readonly onAbort = (event: Event) => {
    const signal = event.target as AbortSignal;
    const jobs = this.watched.get(signal);
    this.watched.delete(signal);
    for (const job of jobs ?? []) this.cancel(job);
  };

  private runInline(job: Job): void {
    this.settle(job);
    (job.pdf
      ? pdfHere(job.pdf.bytes, { ...job.pdf.options, deadline: job.deadline })
      : processHere(job.source, job.options, undefined)
    ).then(job.resolve, job.reject);
  }

  process(
    source: string,
    options: PooledOptions,
    extraction?: PageExtraction,
    control?: JobControl,
  ): Promise<Processed> {
    if (!this.closed && !this.slots.length) {
      try {
        checkControl(control);
      } catch (e) {
        return Promise.reject(e);
      }
      return processHere(source, options, extraction);
    }
    return this.enqueue<Processed>(
      { source, options, schema: extraction?.schema, marketplace: extraction?.marketplace, size: source.length },
      control,
    );
  }

  /**
   * A PDF takes its turn in the same queue, under the same time limit and memory, as a heavy
   * job: a worker to itself.
   */
  processPdf(bytes: Uint8Array, options: PdfOptions, control?: JobControl): Promise<PdfMarkdown> {
    const limited = { maxInflatedBytes: this.pdfMaxInflatedBytes, ...options };
    if (!this.closed && !this.slots.length) {
      try {
        checkControl(control);
      } catch (e) {
        return Promise.reject(e);
      }
      return pdfHere(bytes, { ...limited, deadline: control?.deadline });
    }
    return this.enqueue<PdfMarkdown>(
      { source: '', options: { url: 'about:blank' }, pdf: { bytes, options: limited }, size: bytes.byteLength },
      control,
    );
  }

  private enqueue<T>(
    work: Pick<Job, 'source' | 'options' | 'pdf' | 'schema' | 'marketplace' | 'size'>,
    control?: JobControl,
  ): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the document pool is closed'));
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        ...work,
        owner: control?.owner ?? '',
        queuedAt: Date.now(),
        deadline: control?.deadline,
        signal: control?.signal,
        resolve: resolve as (r: unknown) => void,
        reject,
      };
      if (job.signal) {
        if (job.signal.aborted) return reject(abortReason(job.signal));
        let jobs = this.watched.get(job.signal);
        if (!jobs) {
          this.watched.set(job.signal, (jobs = new Set()));
          job.signal.addEventListener('abort', this.onAbort, { once: true });
        }
        jobs.add(job);
      }
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** The caller gave up on `job`: it leaves the queue, or is stopped where it runs. */
  private cancel(job: Job): void {
    const reason = abortReason(job.signal!);
    const q = this.queue.indexOf(job);
    if (q >= 0) {
      this.queue.splice(q, 1);
      return job.reject(reason);
    }
    for (const slot of this.express ? [...this.slots, this.express] : this.slots) {
      const i = slot.jobs.indexOf(job);
      if (i < 0) continue;
      if (i === 0) return this.stop(slot, reason);
      // Posted ahead, not started: a small page; the worker's answer for it will be ignored.
      slot.jobs.splice(i, 1);
      return job.reject(reason);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.recheck);
    const slots = [...this.slots.splice(0), ...(this.express ? [this.express] : [])];
    this.express = undefined;
    for (const s of slots) {
      clearTimeout(s.watchdog);
      clearTimeout(s.idleTimer);
    }
    for (const j of this.queue.splice(0)) j.reject(new Error('the document pool is closed'));
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
