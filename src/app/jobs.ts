/**
 * Jobs as an account asks for them (v1, Firecrawl and the dashboard alike), in one place: made
 * (openJob: its targets, then its webhook's URL, then one credit — 402 when there is none,
 * contract section 7 — the job and its start events written together, this process's runners
 * woken), found by id within the account, listed, their pages read, and cancelled with the events
 * the cancel owes (Trawl's and, for a /firecrawl job, Firecrawl's). A job's pages are read only
 * through the AccountJob the account's lookup returned: that is the ownership check.
 */
import { TrawlError } from '../errors.js';
import { jobEvents } from '../jobs/events.js';
import { accounts, jobs as repo, newId, type Job } from '../store/index.js';
import type { NewJobEvent } from '../store/repos/job-events.js';
import type { FirecrawlJobTag, FirecrawlWebhook } from '../contract/firecrawl/webhook.js';
import { charged } from './billing.js';
import type { AppContext } from './context.js';
import { firecrawlEvents, startedEvents } from './firecrawl-events.js';
import { refuseAllForbidden, refuseForbidden } from './targets.js';

/** What a job id looks like: anything else is not looked up (PostgreSQL refuses some bytes, a NUL, with an error). */
export const JOB_ID = /^job_[0-9A-Za-z]{20}$/;

/** What a job costs when it is accepted (contract section 7). */
export const JOB_CREDITS = 1;

declare const ofAccount: unique symbol;
/** A job as its account found it (findJob, listJobs, openJob): only these have their pages read. */
export type AccountJob = Job & { readonly [ofAccount]: true };
const owned = (j: Job) => j as AccountJob;

/**
 * A job's webhook as the surface asked for it, its shape checked: Trawl's (`webhook`,
 * `webhook_events`) or Firecrawl's (`firecrawl`: its events go in Firecrawl's body, `started`
 * written with the job).
 */
export interface JobHook {
  url: string;
  events?: string[];
  firecrawl?: FirecrawlWebhook;
}

/** Trawl's webhook fields checked for shape (opt-in events need a URL to go to: 400). */
export function trawlHook(body: { webhook?: string; webhook_events?: string[] }): JobHook | undefined {
  if (!body.webhook) {
    if (body.webhook_events?.length)
      throw new TrawlError('invalid_request', 'webhook_events: give a webhook URL for the events to go to');
    return undefined;
  }
  return { url: body.webhook, events: body.webhook_events };
}

export interface JobAsked {
  kind: 'crawl' | 'batch';
  /** What its pages are scraped with, as the runner reads them (CrawlJobOptions, BatchOptions). */
  options: object;
  /** A crawl's start URL, a batch's URLs (de-duplicated). */
  urls: string[];
  maxItems: number;
  hook?: JobHook;
}

/** A job accepted: what the surface answers with, and what it was charged. */
export interface Started {
  job: AccountJob;
  credits: number;
}

/**
 * A job, after the body's shape (the surface's parse, the webhook's shape included), in one order
 * for every surface: its targets (a crawl's start URL on a private address, a batch none of whose
 * URLs may be reached: 403 now, not a job charged to fail), its webhook's URL (403), the credit
 * (402), then the job.
 */
export async function openJob(ctx: AppContext, accountId: string, j: JobAsked): Promise<Started> {
  // Credits before work (the contract's order): an account with none gets its 402 before the
  // targets' lookups (up to 200 names). The credit itself is still reserved atomically below.
  const account = await accounts.findAccountById(ctx.store.db, accountId);
  if (!account || Number(account.credits) < JOB_CREDITS) throw new TrawlError('insufficient_credits');
  if (j.kind === 'crawl') await refuseForbidden(ctx, j.urls[0]);
  else await refuseAllForbidden(ctx, j.urls);
  const { hook, ...rest } = j;
  if (hook) await refuseForbidden(ctx, hook.url, 'webhook: ');
  const fc = hook?.firecrawl;
  const job = await startJob(ctx, accountId, {
    ...rest,
    // A Firecrawl webhook rides on the job's tag (app/firecrawl-events.ts reads it there).
    options: fc
      ? { ...rest.options, firecrawl: { ...(rest.options as FirecrawlJobTag).firecrawl, webhook: fc } }
      : rest.options,
    webhook: hook?.url,
    webhookEvents: hook?.events,
    startEvents: (id) => (fc ? startedEvents(fc, id) : []),
  });
  return { job, credits: JOB_CREDITS };
}

/**
 * A job made and charged (one credit, given back if it could not be written), read back as it
 * was accepted, and then this process's runners woken.
 */
async function startJob(
  ctx: AppContext,
  accountId: string,
  j: Omit<JobAsked, 'hook'> & {
    webhook?: string;
    webhookEvents?: string[];
    /** Events written with the job (a Firecrawl webhook's `started`), given its id. */
    startEvents: (id: string) => NewJobEvent[];
  },
): Promise<AccountJob> {
  const id = newId('job');
  const { startEvents, ...rest } = j;
  await charged(ctx.store.db, accountId, () =>
    repo.createJob(ctx.store.db, { id, accountId, ...rest, at: ctx.store.now().toISOString() }, startEvents(id)),
  );
  const job = (await repo.getJob(ctx.store.db, accountId, id))!;
  ctx.jobs?.wake();
  return owned(job);
}

/** The account's job of this id, if there is one. */
export async function findJob(ctx: AppContext, accountId: string, id: string): Promise<AccountJob | undefined> {
  const j = JOB_ID.test(id) ? await repo.getJob(ctx.store.db, accountId, id) : undefined;
  return j && owned(j);
}

/** The account's jobs, newest first; `before`: the created_at and id of the previous page's last. */
export async function listJobs(
  ctx: AppContext,
  accountId: string,
  limit: number,
  before?: { createdAt: string; id: string },
): Promise<AccountJob[]> {
  return (await repo.listJobs(ctx.store.db, accountId, limit, before)).map(owned);
}

/** Up to `limit` pages after cursor `after`, in completion order. */
export const pagesAfter = (ctx: AppContext, j: AccountJob, after: number, limit: number) =>
  repo.pagesAfter(ctx.store.db, j.id, after, limit);

/** Up to `limit` pages after `after` within `maxBytes` of text (one at least); `cut`: pages were left. */
export const pagesWithin = (ctx: AppContext, j: AccountJob, after: number, limit: number, maxBytes: number) =>
  repo.pagesWithin(ctx.store.db, j.id, after, limit, maxBytes);

/** Whether a page follows cursor `after`. */
export const hasPageAfter = (ctx: AppContext, j: AccountJob, after: number) =>
  repo.hasPageAfter(ctx.store.db, j.id, after);

/** Up to `limit` failed pages after cursor `after`, in completion order. */
export const failedPagesAfter = (ctx: AppContext, j: AccountJob, after: number, limit: number) =>
  repo.failedPagesAfter(ctx.store.db, j.id, after, limit);

/** Cancel a job: no new fetches, pages done kept; the job as it is now. */
export async function cancelJob(ctx: AppContext, j: AccountJob): Promise<AccountJob> {
  const at = ctx.store.now().toISOString();
  await repo.cancelJob(ctx.store.db, j.account_id, j.id, at, jobEvents(at, firecrawlEvents));
  return owned((await repo.getJob(ctx.store.db, j.account_id, j.id))!);
}
