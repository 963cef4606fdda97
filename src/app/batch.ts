/**
 * A batch scrape as an account asks for it (/v1/batch/scrape, the dashboard's Jobs page): its
 * webhook and every URL checked first (a private address is a 403 now, not a job charged to
 * fail), then a job of one page per URL, charged one credit when accepted.
 */
import type { BatchScrapeBody } from '../contract/schemas.js';
import type { BatchOptions } from '../jobs/runner.js';
import type { Job } from '../store/index.js';
import type { AppContext } from './context.js';
import { startJob } from './jobs.js';
import { jobWebhook, refuseAllForbidden } from './targets.js';

/** What a batch's pages are scraped with, as stored on the job (the runner's BatchOptions). */
export function batchOptions(body: BatchScrapeBody, filesBase: string): BatchOptions {
  const { urls: _urls, webhook: _webhook, webhook_events: _events, ...options } = body;
  const shots =
    !!body.formats?.some((f) => f.startsWith('screenshot')) || !!body.actions?.some((a) => a.type === 'screenshot');
  return { ...(options as BatchOptions), ...(shots ? { files_base: filesBase } : {}) };
}

/** `body` as its reader left it: checked whole, URLs de-duplicated. */
export async function startBatch(
  ctx: AppContext,
  accountId: string,
  body: BatchScrapeBody,
  filesBase: string,
): Promise<Job> {
  const hook = await jobWebhook(ctx, body);
  await refuseAllForbidden(ctx, body.urls);
  return startJob(ctx, {
    accountId,
    kind: 'batch',
    options: batchOptions(body, filesBase),
    urls: body.urls,
    maxItems: body.urls.length,
    ...hook,
  });
}
