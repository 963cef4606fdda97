/**
 * Scale-out transport of job pages: each page claimed from the store's frontier becomes a BullMQ
 * job that any `trawl worker` takes (contract section 7). The store stays the judge: the page's
 * claim (its attempts number, in the BullMQ job id and data) is checked when its result is
 * written, so a page handed twice (a lease passed while it waited) is written once. A job whose
 * worker died is not retried by BullMQ (maxStalledCount 0): the claim's lease passes and the page
 * is claimed and handed again, under a new attempts number.
 */
import { Queue, Worker } from 'bullmq';
import type { ClaimedItem } from '../store/repos/jobs.js';
import { connection } from './bullmq.js';

const PAGES = 'job-pages';
const OPTIONS = { removeOnComplete: true, removeOnFail: true, attempts: 1 };
const WAITING = new Set(['waiting', 'prioritized', 'delayed', 'waiting-children']);
/** One BullMQ job per claim of a page (a page claimed again is a new job). */
const pageJobId = (it: ClaimedItem) => `${it.job_id}-${it.seq}-${it.attempts}`;

export interface PageQueueOptions {
  redisUrl: string;
  prefix?: string;
  onError?: (err: unknown) => void;
}

export class PageQueue {
  readonly #opts: PageQueueOptions;
  readonly #queue: Queue;
  #worker?: Worker;

  constructor(options: PageQueueOptions) {
    this.#opts = options;
    this.#queue = new Queue(PAGES, { connection: connection(options.redisUrl), prefix: options.prefix ?? 'trawl' });
    this.#queue.on('error', (err) => options.onError?.(err));
  }

  async add(items: ClaimedItem[]): Promise<void> {
    if (items.length)
      await this.#queue.addBulk(
        items.map((it) => ({ name: 'page', data: it, opts: { ...OPTIONS, jobId: pageJobId(it) } })),
      );
  }

  /**
   * Of these pages (handed out by this process), those no worker has taken yet: their claims'
   * leases are kept by the process that handed them out until a worker takes them.
   */
  async notTaken(items: ClaimedItem[]): Promise<ClaimedItem[]> {
    const states = await Promise.all(items.map((it) => this.#queue.getJobState(pageJobId(it))));
    return items.filter((_, i) => WAITING.has(states[i]));
  }

  /** Pages handed out and not yet taken by any worker. */
  waiting(): Promise<number> {
    return this.#queue.getWaitingCount();
  }

  consume(handler: (item: ClaimedItem) => Promise<void>, concurrency: number): void {
    this.#worker = new Worker(PAGES, async (job) => handler(job.data as ClaimedItem), {
      connection: connection(this.#opts.redisUrl),
      prefix: this.#opts.prefix ?? 'trawl',
      concurrency,
      maxStalledCount: 0,
    });
    this.#worker.on('error', (err) => this.#opts.onError?.(err));
  }

  async close(): Promise<void> {
    await this.#worker?.close();
    await this.#queue.close();
  }
}
