/**
 * Jobs as an account asks for them (v1 and Firecrawl alike): made in one place — one credit when
 * accepted (402 when there is none, contract section 7), the job and its start events written
 * together, this process's runners woken — found by id within the account, and cancelled with the
 * events the cancel owes (Trawl's and, for a /firecrawl job, Firecrawl's).
 */
import { jobEvents } from '../jobs/events.js';
import { jobs as repo, newId, type Job } from '../store/index.js';
import type { NewJobEvent } from '../store/repos/job-events.js';
import { charged } from './billing.js';
import type { AppContext } from './context.js';
import { firecrawlEvents } from './firecrawl-events.js';

/** What a job id looks like: anything else is not looked up (PostgreSQL refuses some bytes, a NUL, with an error). */
export const JOB_ID = /^job_[0-9A-Za-z]{20}$/;

export interface JobRequest {
  accountId: string;
  kind: 'crawl' | 'batch';
  /** What its pages are scraped with, as the runner reads them (CrawlJobOptions, BatchOptions). */
  options: object;
  urls: string[];
  maxItems: number;
  webhook?: string;
  webhookEvents?: string[];
  /** Events written with the job (a Firecrawl webhook's `started`), given its id. */
  startEvents?: (id: string) => NewJobEvent[];
}

/**
 * A job made and charged (one credit, given back if it could not be written), read back as it
 * was accepted, and then this process's runners woken.
 */
export async function startJob(ctx: AppContext, j: JobRequest): Promise<Job> {
  const id = newId('job');
  const { accountId, startEvents, ...rest } = j;
  await charged(ctx.store.db, accountId, () =>
    repo.createJob(
      ctx.store.db,
      { id, accountId, ...rest, at: ctx.store.now().toISOString() },
      startEvents?.(id) ?? [],
    ),
  );
  const job = (await repo.getJob(ctx.store.db, accountId, id))!;
  ctx.jobs?.wake();
  return job;
}

/** The account's job of this id, if there is one. */
export async function findJob(ctx: AppContext, accountId: string, id: string): Promise<Job | undefined> {
  return JOB_ID.test(id) ? await repo.getJob(ctx.store.db, accountId, id) : undefined;
}

/** Cancel a job: no new fetches, pages done kept; the job as it is now. */
export async function cancelJob(ctx: AppContext, j: Job): Promise<Job> {
  const at = ctx.store.now().toISOString();
  await repo.cancelJob(ctx.store.db, j.account_id, j.id, at, jobEvents(at, firecrawlEvents));
  return (await repo.getJob(ctx.store.db, j.account_id, j.id))!;
}
