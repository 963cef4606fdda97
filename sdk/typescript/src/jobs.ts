/**
 * Following a job: wait for it to end (reporting progress as it moves), and read its pages
 * across cursors as they are written. Both poll GET /v1/jobs/{id}; the server keeps pages in
 * order of completion and `next_cursor` says where the next read starts.
 */
import { TrawlTimeoutError } from './errors.js';
import { sleep, type RequestOptions } from './http.js';
import type { Job, JobPage, JobWithPages, PageQuery } from './types.js';

export type GetJob = (id: string, query: PageQuery, options: RequestOptions) => Promise<JobWithPages>;

const ENDED = new Set(['completed', 'failed', 'cancelled']);
export const isEnded = (job: Job) => ENDED.has(job.state);

export interface WaitForJobOptions extends RequestOptions {
  /** Time between polls (ms). @default 1000 */
  pollIntervalMs?: number;
  /** Called with the job on the first poll and whenever its state or progress changed. */
  onProgress?: (job: Job) => void;
  /** Give up waiting after this long (ms); the job goes on. @default no limit */
  maxWaitMs?: number;
}

/** Polls until the job is completed, failed or cancelled, and answers it in that state. */
export async function waitForJob(getJob: GetJob, id: string, o: WaitForJobOptions = {}): Promise<Job> {
  const until = o.maxWaitMs === undefined ? Infinity : Date.now() + o.maxWaitMs;
  let last = '';
  for (;;) {
    const { job } = await getJob(id, { limit: 1 }, o);
    const seen = JSON.stringify([job.state, job.progress]);
    if (seen !== last) {
      last = seen;
      o.onProgress?.(job);
    }
    if (isEnded(job)) return job;
    const wait = Math.min(o.pollIntervalMs ?? 1000, until - Date.now());
    if (wait <= 0) throw new TrawlTimeoutError(o.maxWaitMs!, 'maxWaitMs');
    await sleep(wait, o.signal);
  }
}

export interface JobPagesOptions extends RequestOptions {
  /** Pages per request, 1–100. @default 100 */
  limit?: number;
  /** Start after this cursor (a `next_cursor` seen before). */
  cursor?: string;
  /** Keep waiting for pages while the job runs; false stops at the pages written so far. @default true */
  follow?: boolean;
  /** Time between polls while waiting for new pages (ms). @default 1000 */
  pollIntervalMs?: number;
}

/** Every page of a job, each once, in the order they were written. */
export async function* jobPages(
  getJob: GetJob,
  id: string,
  o: JobPagesOptions = {},
): AsyncGenerator<JobPage, void, undefined> {
  const limit = o.limit ?? 100;
  let cursor = o.cursor;
  for (;;) {
    const r = await getJob(id, { cursor, limit }, o);
    yield* r.pages;
    if (r.next_cursor === null) return;
    cursor = r.next_cursor;
    // A short page of a running job: the rest is not written yet.
    if (r.pages.length < limit) {
      if (o.follow === false) return;
      await sleep(o.pollIntervalMs ?? 1000, o.signal);
    }
  }
}
