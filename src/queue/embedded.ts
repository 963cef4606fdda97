/**
 * The embedded adapter: two in-process lanes (runs, deliveries) with bounded concurrency. Ids
 * already waiting or in hand are not added twice. Nothing here needs to survive a restart: the
 * store still says what is queued or due, and the scheduler hands it out again.
 */
import type { QueueDepth, WorkHandlers, WorkQueue } from './work-queue.js';

class Lane {
  readonly #waiting: string[] = [];
  readonly #known = new Set<string>();
  #running = 0;
  #closed = false;
  #idle: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private handle?: (key: string) => Promise<void>,
    private readonly onError?: (err: unknown) => void,
  ) {}

  start(handle: (key: string) => Promise<void>): void {
    this.handle = handle;
    this.#pump();
  }

  add(key: string): void {
    if (this.#closed || this.#known.has(key)) return;
    this.#known.add(key);
    this.#waiting.push(key);
    this.#pump();
  }

  #pump(): void {
    while (this.handle && !this.#closed && this.#running < this.concurrency && this.#waiting.length) {
      const key = this.#waiting.shift()!;
      this.#running++;
      this.handle(key)
        .catch((err) => this.onError?.(err))
        .finally(() => {
          this.#running--;
          this.#known.delete(key);
          this.#pump();
          if (!this.#running) for (const r of this.#idle.splice(0)) r();
        });
    }
  }

  /** Keys waiting or in hand. */
  get size(): number {
    return this.#known.size;
  }

  /** Keys waiting, and keys being handled. */
  depth(queue: string): QueueDepth[] {
    return [
      { queue, state: 'waiting', count: this.#waiting.length },
      { queue, state: 'active', count: this.#running },
    ];
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#waiting.length = 0;
    return this.#running ? new Promise((r) => this.#idle.push(r)) : Promise.resolve();
  }
}

export class EmbeddedQueue implements WorkQueue {
  readonly kind = 'embedded' as const;
  readonly #runs: Lane;
  readonly #deliveries: Lane;
  readonly #runConcurrency: number;

  constructor(
    options: { runConcurrency?: number; deliveryConcurrency?: number; onError?: (err: unknown) => void } = {},
  ) {
    this.#runConcurrency = options.runConcurrency ?? 32;
    this.#runs = new Lane(this.#runConcurrency, undefined, options.onError);
    this.#deliveries = new Lane(options.deliveryConcurrency ?? 64, undefined, options.onError);
  }

  async addRuns(runIds: string[]): Promise<void> {
    for (const id of runIds) this.#runs.add(id);
  }

  async addDeliveries(deliveries: { id: string; attempts: number }[]): Promise<void> {
    for (const d of deliveries) this.#deliveries.add(`${d.id}.${d.attempts}`);
  }

  /** Room for one more lane-full waiting behind the runs in hand. */
  async runCapacity(): Promise<number> {
    return Math.max(0, 2 * this.#runConcurrency - this.#runs.size);
  }

  async depth(): Promise<QueueDepth[]> {
    return [...this.#runs.depth('monitor-runs'), ...this.#deliveries.depth('webhook-deliveries')];
  }

  consume(handlers: WorkHandlers): void {
    // A run held by another runner needs nothing here: this process's sweep hands it out again once its lease ends.
    this.#runs.start(async (id) => void (await handlers.run(id)));
    this.#deliveries.start((key) => {
      const dot = key.lastIndexOf('.');
      return handlers.delivery(key.slice(0, dot), Number(key.slice(dot + 1)));
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.#runs.close(), this.#deliveries.close()]);
  }
}
