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
 * (and an owner's one small PDF) that would wait behind a heavy or slow job go to an express worker. A worker that a job left
 * holding much memory outside its heap (pdf.js's buffers) is replaced at once. A page that
 * runs past its budget (the pool's per-document limit, or its request's deadline) is stopped
 * by terminating its worker: only that page fails; the pages posted behind it run again on a
 * fresh worker. A job whose caller gave up (signal aborted) leaves the queue, or runs on alone
 * for a short grace, its answer ignored, then is stopped (a fresh worker per hang-up would be free churn). A worker that crashes fails only the page it was running. When workers
 * cannot run at all (no compiled worker script, repeated crashes) pages are processed
 * inline, as without a pool.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TrawlError, timeoutError } from '../../errors.js';
import type { PdfMarkdown, PdfOptions } from './pdf.js';
import type { DocumentProcessor, JobControl, PageExtraction, PooledOptions, Processed } from './processor.js';
import { abortReason, checkControl, pdfHere, processHere } from './process.js';
import {
  EXPRESS_IDLE_MS,
  RECYCLE_IDLE_MS,
  blocksAt,
  defaultDocumentWorkers,
  type DocumentPoolOptions,
  ABANDONED_GRACE_MS,
  expressable,
  heavy,
  type Job,
  LARGE_SLOW_MS,
  MAX_RESTARTS,
  PER_WORKER,
  RECYCLE_EXTERNAL_BYTES,
  RECYCLE_GROWTH_BYTES,
  RECYCLE_HEAP_BYTES,
  RESTED_IDLE_MS,
  type Slot,
  WARM_UP_PASSES,
  YOUNG_GENERATION_MB,
} from './pool-tuning.js';
import { fairOrder } from './pool-order.js';

// The port and the one-page functions, for the modules that import them from here.
export {
  ownedBy,
  type DocumentProcessor,
  type JobControl,
  type PageExtraction,
  type PooledOptions,
  type Processed,
} from './processor.js';
export { processDocument, processPdf } from './process.js';
export type { DocumentPoolOptions } from './pool-tuning.js';

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
    for (const job of fairOrder(this.queue, this.express ? [...this.slots, this.express] : this.slots, now)) {
      const slot = this.slotFor(job, now);
      if (!slot) {
        if (expressable(job)) waitingSmall = true;
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
    if (best || !expressable(job) || this.expressSize === 0) return best;
    const blocked = this.slots.some((s) => s.jobs.length && now >= blocksAt(s, this.largeSlowMs));
    if (!blocked) return undefined;
    if (this.express?.stopping) return undefined;
    // A small PDF goes there only when it is idle, and only its owner's first: it is a way past
    // others' slow jobs, not a second lane for one owner.
    if (heavy(job) && (this.express?.jobs.length || this.running(job.owner))) return undefined;
    this.express ??= this.spawn();
    const head = this.express.jobs[0];
    return this.express.jobs.length < PER_WORKER && !(head && heavy(head)) ? this.express : undefined;
  }

  /** Whether `owner` has a job running on a worker. */
  private running(owner: string): boolean {
    return [...this.slots, ...(this.express ? [this.express] : [])].some((s) => s.jobs[0]?.owner === owner);
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
      if (i === 0) {
        // Pages posted behind it would wait for it: stopped, and they run again on a fresh worker.
        if (slot.jobs.length > 1) return this.stop(slot, reason);
        // Alone, it may finish for a moment, its answer ignored: stopping it at once would cost a
        // fresh worker and its warm-up, which a caller hanging up again and again would have for
        // free (an outside attack: 30 abandoned PDFs, 32 workers). Running on, it stays its owner's
        // share; past the grace it is stopped (a hostile page must not keep the worker its budget long).
        this.settle(job);
        const grace = setTimeout(() => slot.jobs[0] === job && this.stop(slot, reason), ABANDONED_GRACE_MS);
        grace.unref();
        return job.reject(reason);
      }
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
