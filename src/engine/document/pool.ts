/**
 * Document processing off the main thread: a few worker threads run the same pipeline
 * (`processHtml`, and schema extraction on the same parsed tree when a job asks for it), so
 * a crawl or a busy service parses pages on a second core while the event loop keeps
 * fetching and answering. Jobs go to the least busy worker. A worker that
 * dies fails only its own jobs and is replaced; when workers cannot run at all (no compiled
 * worker script, repeated crashes) pages are processed inline, as without a pool.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { timeoutError } from '../../errors.js';
import type { ExtractOutput } from '../extract/index.js';
import type { SchemaObject } from '../extract/schema.js';
import type { Document } from './dom.js';
import type { DocumentOptions, DocumentResult } from './index.js';

export type PooledOptions = Omit<DocumentOptions, 'onDocument'>;

/** A processed page, with what extraction found when a schema was asked for. */
export interface Processed extends DocumentResult {
  extracted?: ExtractOutput;
}

export interface DocumentProcessor {
  /** Runs the pipeline on a page; with an extraction, that too (on the same parsed tree). */
  process(source: string, options: PooledOptions, extraction?: PageExtraction): Promise<Processed>;
  close(): Promise<void>;
}

/**
 * Extraction to run on a page's parsed tree: its schema (sent to a worker as data) and how
 * to run it on this thread. The extractor lives above this module; it hands itself in.
 */
export interface PageExtraction {
  schema: SchemaObject;
  /** `baseUrl`: where the page's links resolve (its `<base href>`); `url`: the page's own. */
  here(doc: Document, baseUrl: string, source: string, url: string): ExtractOutput;
}

/**
 * The pipeline for one page, extraction included when asked: on the pool when there is
 * one, inline when there is none (or when a processor answered without extracting).
 */
export async function processDocument(documents: DocumentProcessor | undefined, source: string, options: PooledOptions, extraction?: PageExtraction): Promise<Processed> {
  if (documents) {
    const r = await documents.process(source, options, extraction);
    if (!extraction || r.extracted) return r;
  }
  return processHere(source, options, extraction);
}

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
  resolve(r: Processed): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker;
  jobs: Map<number, Job>;
  /** Fires when the worker has sat on its oldest job for too long. */
  watchdog?: NodeJS.Timeout;
  timedOut?: boolean;
  /** Settles when the worker has finished its warm-up (or died): its duration in ms. */
  warm: Promise<number>;
}

export interface DocumentPoolOptions {
  /** Worker threads. @default available cores − 1 (0 = process inline) */
  size?: number;
  /** The worker script. @default the compiled `worker.js` next to this module */
  workerUrl?: URL;
  /** A worker that answers nothing for this long is stopped and its pages fail. @default 30000 */
  jobTimeoutMs?: number;
  /** Passes over a sample page each new worker makes to compile the pipeline (0 = none). @default 40 */
  warmUpPasses?: number;
}

/** Worker young generation: a page is short-lived garbage. Measured on bench:crawl (interleaved runs): 8 MB ran 12 % faster than 4 MB with 13 MB less peak RSS (fewer pages promoted mid-parse); 16 MB no faster, +10 MB. */
const YOUNG_GENERATION_MB = 8;
/** Passes of a new worker's warm-up (warm-up.ts). Measured on bench:crawl: the pipeline's hot functions are optimised after ~30–40; 100 bought nothing more. */
const WARM_UP_PASSES = 40;
/** Crashes tolerated before the pool stops replacing workers and goes inline. */
const MAX_RESTARTS = 3;

const defaultDocumentWorkers = () => Math.max(0, Math.min(4, availableParallelism() - 1));

export class DocumentPool implements DocumentProcessor {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  private restarts = 0;
  private readonly workerUrl: URL;
  private readonly jobTimeoutMs: number;
  private readonly warmUpPasses: number;

  constructor(options: DocumentPoolOptions = {}) {
    this.workerUrl = options.workerUrl ?? new URL('./worker.js', import.meta.url);
    this.jobTimeoutMs = options.jobTimeoutMs ?? 30_000;
    this.warmUpPasses = Math.max(0, options.warmUpPasses ?? WARM_UP_PASSES);
    // Running from TypeScript sources (tests) there is no compiled worker: stay inline.
    const size = existsSync(fileURLToPath(this.workerUrl)) ? Math.max(0, options.size ?? defaultDocumentWorkers()) : 0;
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  /** Number of live worker threads (0 = pages are processed inline). */
  get size(): number {
    return this.slots.length;
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
      return s.warm.finally(() => s.jobs.size || s.worker.unref());
    });
    return Math.max(0, ...(await Promise.all(waits)));
  }

  private spawn(): Slot {
    const worker = new Worker(this.workerUrl, { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB }, workerData: { warmUpPasses: this.warmUpPasses } });
    let warmed!: (ms: number) => void;
    const slot: Slot = { worker, jobs: new Map(), warm: new Promise((r) => (warmed = r)) };
    // An idle pool must not keep the process alive.
    worker.unref();
    worker.on('message', (m: { id: number; result?: Processed; error?: string; warm?: number }) => {
      if (m.warm !== undefined) return warmed(m.warm);
      const job = slot.jobs.get(m.id);
      if (!job) return;
      slot.jobs.delete(m.id);
      this.arm(slot);
      if (!slot.jobs.size) worker.unref();
      if (m.error !== undefined) job.reject(new Error(m.error));
      else job.resolve(m.result!);
    });
    let failed = false;
    const fail = (e: Error) => {
      if (failed) return;
      failed = true;
      warmed(0);
      clearTimeout(slot.watchdog);
      // A pathological page (runaway nesting, a regex that never ends) must not hold a core.
      const error = slot.timedOut ? timeoutError(`processing the page took longer than ${this.jobTimeoutMs} ms and was stopped`) : e;
      for (const job of slot.jobs.values()) job.reject(error);
      slot.jobs.clear();
      const i = this.slots.indexOf(slot);
      if (i < 0 || this.closed) return;
      // A page that was too slow says nothing about the worker; crashes do.
      if (!slot.timedOut && ++this.restarts > MAX_RESTARTS) this.slots.splice(i, 1);
      else this.slots[i] = this.spawn();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`document worker exited with code ${code}`)));
    return slot;
  }

  /** (Re)start the watchdog for the slot's oldest job, or stop it when the slot is idle. */
  private arm(slot: Slot): void {
    clearTimeout(slot.watchdog);
    slot.watchdog = undefined;
    if (!slot.jobs.size) return;
    slot.watchdog = setTimeout(() => {
      slot.timedOut = true;
      void slot.worker.terminate();
    }, this.jobTimeoutMs);
    slot.watchdog.unref();
  }

  process(source: string, options: PooledOptions, extraction?: PageExtraction): Promise<Processed> {
    if (this.closed) return Promise.reject(new Error('the document pool is closed'));
    if (!this.slots.length) return processHere(source, options, extraction);
    let slot = this.slots[0];
    for (const s of this.slots) if (s.jobs.size < slot.jobs.size) slot = s;
    const id = this.nextId++;
    return new Promise<Processed>((resolve, reject) => {
      slot.jobs.set(id, { resolve, reject });
      if (!slot.watchdog) this.arm(slot);
      slot.worker.ref();
      // The schema goes as data; the worker compiles it (once) and extracts there.
      slot.worker.postMessage({ id, source, options, schema: extraction?.schema });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0);
    for (const s of slots) clearTimeout(s.watchdog);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
