/**
 * A crawl as an account asks for it. Async: a job (app/jobs.ts), its start URL and webhook checked
 * first. Synchronous: the same machinery (a held job on the runners) answered when it ends, charged
 * through the surface's credit gate, and not charged when it fails (its pages dropped, nothing of
 * it readable later).
 */
import { isTrawlError } from '../errors.js';
import type { CrawlJobOptions } from '../jobs/crawl-item.js';
import { crawlAsJob, settleSyncCrawl } from '../jobs/sync-crawl.js';
import { newId, type Job } from '../store/index.js';
import type { AppContext } from './context.js';
import { startJob } from './jobs.js';
import { jobWebhook, refuseForbidden } from './targets.js';

/** An async crawl: a start URL on a private address is a 403 now, not a job charged to fail. */
export async function startCrawl(
  ctx: AppContext,
  accountId: string,
  options: CrawlJobOptions,
  hook: { webhook?: string; webhook_events?: string[] },
): Promise<Job> {
  await refuseForbidden(ctx, options.url);
  const webhook = await jobWebhook(ctx, hook);
  return startJob(ctx, { accountId, kind: 'crawl', options, urls: [options.url], maxItems: options.limit, ...webhook });
}

/** The surface's credit gate: reserve, run the work with its signal, keep or give back (withCredit). */
export type Pay = <T>(work: (signal: AbortSignal) => Promise<T>) => Promise<T>;

/** A synchronous crawl, answered when it ends (or its budget does). */
export async function crawlNow(
  ctx: AppContext,
  accountId: string,
  options: CrawlJobOptions,
  timeoutMs: number,
  pay: Pay,
): Promise<Awaited<ReturnType<typeof crawlAsJob>>> {
  await refuseForbidden(ctx, options.url);
  const id = newId('job');
  let result;
  try {
    result = await pay((signal) =>
      crawlAsJob(ctx.store, {
        id,
        accountId,
        options,
        timeoutMs,
        signal,
        wake: () => ctx.jobs?.wake(),
        maxBytes: ctx.config.answerMaxBytes,
      }),
    );
  } catch (e) {
    // Not charged: nothing of it is readable later (a job never made has nothing to drop).
    await settleSyncCrawl(ctx.store, id, false, isTrawlError(e) ? e.code : 'internal_error').catch(() => {});
    throw e;
  }
  await settleSyncCrawl(ctx.store, id, true);
  return result;
}
