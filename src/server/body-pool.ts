/**
 * Large request bodies (over BODY_LIMIT: only the batch routes take them) are parsed and
 * validated on worker threads, never on the event loop: 80 MB of JSON is a second or more of
 * scanning, parsing and validating that would hold every other request. A few workers
 * (TRAWL_BODY_WORKERS, default 1) read one body each at a time; waiting bodies are taken in turn
 * per account, so one account's bodies never keep another's waiting behind them. A worker that
 * runs out of memory fails only its body (413) and is replaced; an idle one is let go, giving
 * its memory back. Without workers (none configured, or they cannot start) bodies are read here,
 * as before the pool.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { TrawlError, type ErrorCode } from '../errors.js';
import type { ReaderName } from './body-readers.js';
import type { BodyAnswer, BodyJob } from './body-worker.js';
import { readLargeBody } from './json-body.js';

/** Heap a worker may use: an 80 MiB body is ~3× that while read (text, values, the reader's copy). */
const WORKER_HEAP_MB = 512;
/** A worker idle this long is stopped (the next large body starts one again). */
const IDLE_MS = 10_000;

interface Job {
  id: number;
  owner: string;
  bytes: Uint8Array;
  reader?: ReaderName;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
  idle?: NodeJS.Timeout;
  /** Let go after being idle: no body goes to it any more. */
  stopping?: boolean;
}

export interface BodyPoolOptions {
  /** Worker threads; 0 reads bodies on the event loop. */
  size: number;
  /** Makes a worker (tests give their own); by default the compiled body-worker.js. */
  spawn?: (options: { resourceLimits: ResourceLimits; workerData: unknown }) => Worker;
}

/** How to start a body worker from the built service, or from the TypeScript sources (tests, tsx). */
export function bodyWorkerSpawn(): BodyPoolOptions['spawn'] {
  const compiled = new URL('./body-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return (o) => new Worker(compiled, o);
  const source = new URL('./body-worker.ts', import.meta.url);
  let tsx: string;
  try {
    // Only sources run this way, and tsx (a dev dependency) is what runs them.
    tsx = import.meta.resolve('tsx/esm/api');
  } catch {
    return undefined;
  }
  if (!existsSync(fileURLToPath(source))) return undefined;
  const boot = `import(${JSON.stringify(tsx)}).then((api) => api.tsImport(${JSON.stringify(source.href)}, ${JSON.stringify(source.href)}))`;
  return (o) => new Worker(boot, { ...o, eval: true });
}

export class BodyPool {
  #size: number;
  readonly #spawn: BodyPoolOptions['spawn'];
  readonly #slots: Slot[] = [];
  /** Waiting bodies per owner, owners in turn (a Map keeps the order they are put back in). */
  readonly #queues = new Map<string, Job[]>();
  #nextId = 1;
  #closed = false;

  constructor(options: BodyPoolOptions) {
    this.#spawn = options.size > 0 ? (options.spawn ?? bodyWorkerSpawn()) : undefined;
    this.#size = this.#spawn ? options.size : 0;
  }

  /** Bodies waiting for a worker. */
  get queued(): number {
    let n = 0;
    for (const q of this.#queues.values()) n += q.length;
    return n;
  }

  /**
   * The body parsed and read by `reader` (its value, or the contract error it raised). `owner`
   * (the account) takes its turn with the others; `signal`: the client went away while it waited.
   */
  read(owner: string, bytes: Uint8Array, reader?: ReaderName, signal?: AbortSignal): Promise<unknown> {
    if (this.#closed) return Promise.reject(new TrawlError('internal_error', 'the body pool is closed'));
    if (!this.#size) return new Promise((resolve) => resolve(readLargeBody(bytes, reader)));
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.#nextId++, owner, bytes, reader, resolve, reject };
      const q = this.#queues.get(owner);
      if (q) q.push(job);
      else this.#queues.set(owner, [job]);
      signal?.addEventListener('abort', () => this.#drop(job, signal.reason), { once: true });
      this.#dispatch();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const q of this.#queues.values())
      for (const job of q) job.reject(new TrawlError('internal_error', 'the body pool is closed'));
    this.#queues.clear();
    await Promise.all(this.#slots.map((s) => s.worker.terminate()));
  }

  /** The next waiting body, owners in turn: the owner served goes to the back. */
  #next(): Job | undefined {
    for (const [owner, q] of this.#queues) {
      this.#queues.delete(owner);
      const job = q.shift();
      if (q.length) this.#queues.set(owner, q);
      if (job) return job;
    }
    return undefined;
  }

  #drop(job: Job, reason: unknown): void {
    const q = this.#queues.get(job.owner);
    const i = q?.indexOf(job) ?? -1;
    if (i < 0) return; // already on a worker: it finishes (bounded) and its answer is dropped
    q!.splice(i, 1);
    if (!q!.length) this.#queues.delete(job.owner);
    job.reject(reason);
  }

  #dispatch(): void {
    if (this.#closed) return;
    for (let slot = this.#idleSlot(); slot; slot = this.#idleSlot()) {
      const job = this.#next();
      if (!job) return;
      clearTimeout(slot.idle);
      slot.job = job;
      // Busy, the worker keeps the process alive until it answers; idle, it does not.
      slot.worker.ref();
      // Handed over, not copied: the worker owns the bytes from here.
      const bytes =
        job.bytes.byteOffset === 0 && job.bytes.byteLength === job.bytes.buffer.byteLength
          ? job.bytes
          : new Uint8Array(job.bytes);
      job.bytes = new Uint8Array(0);
      slot.worker.postMessage({ id: job.id, bytes, reader: job.reader } satisfies BodyJob, [
        bytes.buffer as ArrayBuffer,
      ]);
    }
    const starting = this.#slots.filter((s) => !s.ready).length;
    if (this.queued > starting && this.#slots.length < this.#size) this.#start();
  }

  #idleSlot(): Slot | undefined {
    return this.#slots.find((s) => s.ready && !s.job && !s.stopping);
  }

  #start(): void {
    const worker = this.#spawn!({
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      workerData: { bodyWorker: true },
    });
    const slot: Slot = { worker, ready: false };
    this.#slots.push(slot);
    worker.on('message', (m: BodyAnswer | { ready: true }) => {
      if ('ready' in m) {
        slot.ready = true;
        return this.#dispatch();
      }
      const job = slot.job;
      slot.job = undefined;
      worker.unref();
      slot.idle = setTimeout(() => {
        slot.stopping = true;
        void worker.terminate();
      }, IDLE_MS).unref();
      if (job?.id === m.id) settle(job, m);
      this.#dispatch();
    });
    worker.on('error', (e: Error & { code?: string }) => {
      const job = slot.job;
      slot.job = undefined;
      if (!job) return;
      job.reject(
        e.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new TrawlError(
              'payload_too_large',
              `body: reading it took more than the ${WORKER_HEAP_MB} MiB of memory a body may use; send fewer or shorter values`,
            )
          : e,
      );
    });
    worker.on('exit', () => {
      clearTimeout(slot.idle);
      this.#slots.splice(this.#slots.indexOf(slot), 1);
      slot.job?.reject(new Error('body worker: exited while reading a body'));
      // A worker that never got ready cannot read bodies (no compiled worker, a broken
      // install): the pool reads them here from now on rather than fail every one.
      if (!slot.ready && !this.#closed) this.#fallBack();
      else this.#dispatch();
    });
  }

  #fallBack(): void {
    this.#size = 0;
    for (let job = this.#next(); job; job = this.#next()) {
      try {
        job.resolve(readLargeBody(job.bytes, job.reader));
      } catch (e) {
        job.reject(e);
      }
    }
  }
}

function settle(job: Job, m: BodyAnswer): void {
  if ('value' in m) job.resolve(m.value);
  else if ('error' in m)
    job.reject(new TrawlError(m.error.code as ErrorCode, m.error.detail, { fields: m.error.fields }));
  else job.reject(new Error(`body worker: ${m.bug}`));
}
