/**
 * A batch scrape as an account asks for it (/v1/batch/scrape, Firecrawl's, the dashboard's Jobs
 * page): its URLs checked first (none reachable is a 403 now, not a job charged to fail), then its
 * webhook's URL, then a job of one page per URL, charged one credit when accepted (openJob).
 */
import type { BatchScrapeBody } from '../contract/schemas.js';
import type { BatchOptions } from '../jobs/runner.js';
import type { AppContext } from './context.js';
import { openJob, type JobHook, type Started } from './jobs.js';

/** What a batch's pages are scraped with, as stored on the job (the runner's BatchOptions). */
export function batchOptions(body: BatchScrapeBody, filesBase: string): BatchOptions {
  const { urls: _urls, webhook: _webhook, webhook_events: _events, ...options } = body;
  const shots =
    !!body.formats?.some((f) => f.startsWith('screenshot')) || !!body.actions?.some((a) => a.type === 'screenshot');
  return { ...(options as BatchOptions), ...(shots ? { files_base: filesBase } : {}) };
}

/** `urls` as the surface's reader left them: checked, de-duplicated; `options` made by the surface (batchOptions, or Firecrawl's). */
export async function startBatch(
  ctx: AppContext,
  accountId: string,
  options: object,
  urls: string[],
  hook?: JobHook,
): Promise<Started> {
  return openJob(ctx, accountId, { kind: 'batch', options, urls, maxItems: urls.length, hook });
}
