/**
 * The scale-out adapter: BullMQ queues on Redis, consumed by any number of `trawl worker`s.
 * Job ids are the run id and delivery id + attempt number, so a run or an attempt handed out by
 * several racing schedulers at once is one job; a job whose worker dies is picked up again by
 * BullMQ's stalled-job check, and the handler's claim in the store decides whether anything is
 * left to do. Finished jobs are removed at once: the store is the only memory, and a kept job
 * would turn the recovery's re-add of the same id into a silent no-op (work stranded).
 */
import { DelayedError, Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { QueueDepth, WorkHandlers, WorkQueue } from './work-queue.js';

export interface BullQueueOptions {
  redisUrl: string;
  /** Key prefix (tests use their own). @default 'trawl' */
  prefix?: string;
  runConcurrency?: number;
  deliveryConcurrency?: number;
  onError?: (err: unknown) => void;
}

const RUNS = 'monitor-runs';
const DELIVERIES = 'webhook-deliveries';

export function connection(url: string): ConnectionOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port) || 6379,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    // Workers block on Redis; BullMQ wants commands to wait rather than fail while reconnecting.
    maxRetriesPerRequest: null,
  };
}

// A handler that throws (the database away) is retried a few times; after that the store's
// leases bring the work back (the sweep re-adds it, which works because nothing is kept).
const JOB_OPTIONS = {
  removeOnComplete: true,
  removeOnFail: true,
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
};

export class BullQueue implements WorkQueue {
  readonly kind = 'bullmq' as const;
  readonly #opts: BullQueueOptions;
  readonly #runs: Queue;
  readonly #deliveries: Queue;
  readonly #workers: Worker[] = [];

  constructor(options: BullQueueOptions) {
    this.#opts = options;
    const base = { connection: connection(options.redisUrl), prefix: options.prefix ?? 'trawl' };
    this.#runs = new Queue(RUNS, base);
    this.#deliveries = new Queue(DELIVERIES, base);
    for (const q of [this.#runs, this.#deliveries]) q.on('error', (err) => options.onError?.(err));
  }

  async addRuns(runIds: string[]): Promise<void> {
    if (runIds.length)
      await this.#runs.addBulk(
        runIds.map((runId) => ({ name: 'run', data: { runId }, opts: { ...JOB_OPTIONS, jobId: runId } })),
      );
  }

  async addDeliveries(deliveries: { id: string; attempts: number }[]): Promise<void> {
    if (deliveries.length) {
      await this.#deliveries.addBulk(
        deliveries.map((d) => ({
          name: 'delivery',
          data: { deliveryId: d.id, attempts: d.attempts },
          opts: { ...JOB_OPTIONS, jobId: `${d.id}-${d.attempts}` },
        })),
      );
    }
  }

  /** Room while the runs waiting in Redis are fewer than two rounds of this consumer's concurrency. */
  async runCapacity(): Promise<number> {
    const waiting = await this.#runs.getWaitingCount();
    return Math.max(0, 2 * (this.#opts.runConcurrency ?? 32) - waiting);
  }

  depth(): Promise<QueueDepth[]> {
    return countJobs([this.#runs, this.#deliveries]);
  }

  consume(handlers: WorkHandlers): void {
    const base = { connection: connection(this.#opts.redisUrl), prefix: this.#opts.prefix ?? 'trawl' };
    this.#workers.push(
      new Worker(
        RUNS,
        async (job, token) => {
          const r = await handlers.run(job.data.runId);
          // Held by another runner: look again when its lease ends, instead of completing.
          if (r?.retryAt && token) {
            await job.moveToDelayed(r.retryAt, token);
            throw new DelayedError();
          }
        },
        { ...base, concurrency: this.#opts.runConcurrency ?? 32 },
      ),
      new Worker(DELIVERIES, async (job) => handlers.delivery(job.data.deliveryId, job.data.attempts), {
        ...base,
        concurrency: this.#opts.deliveryConcurrency ?? 64,
      }),
    );
    for (const w of this.#workers) w.on('error', (err) => this.#opts.onError?.(err));
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.close()));
    await Promise.all([this.#runs.close(), this.#deliveries.close()]);
  }
}

const COUNTED = ['wait', 'active', 'delayed', 'prioritized'] as const;

async function countJobs(queues: Queue[]): Promise<QueueDepth[]> {
  const counts = await Promise.all(queues.map((q) => q.getJobCounts(...COUNTED)));
  return queues.flatMap((q, i) =>
    COUNTED.map((state) => ({
      queue: q.name,
      state: state === 'wait' ? 'waiting' : state,
      count: counts[i][state] ?? 0,
    })),
  );
}

/**
 * The queues' depth as any process sees it in Redis (an API process of a scale-out deployment,
 * which holds no queue of its own), on a connection the caller owns and closes.
 */
export function bullQueueDepth(
  connection: Redis,
  prefix: string,
): { read(): Promise<QueueDepth[]>; close(): Promise<void> } {
  const queues = [RUNS, DELIVERIES].map((name) => new Queue(name, { connection, prefix }));
  return { read: () => countJobs(queues), close: async () => void (await Promise.all(queues.map((q) => q.close()))) };
}
