/**
 * The usage row: one per authenticated request (/v1, /firecrawl) and per dashboard action that
 * costs credits (the playground): account, key (none from the dashboard), endpoint, status,
 * credits kept, duration, request id. A monitor run writes its own in the run's transaction
 * (monitors/runner.ts), so that the credit and the row cannot part.
 */
import { usage } from '../store/index.js';
import type { AppContext } from './context.js';

export interface UsageEntry {
  accountId: string;
  /** The API key used; null from the dashboard. */
  keyId: string | null;
  /** `POST /v1/scrape`, `dashboard playground` … */
  endpoint: string;
  status: number;
  credits: number;
  durationMs: number;
  requestId: string;
}

export async function recordUsage(ctx: AppContext, e: UsageEntry): Promise<void> {
  await usage.recordUsage(ctx.store.db, {
    account_id: e.accountId,
    key_id: e.keyId,
    endpoint: e.endpoint,
    status: e.status,
    credits: e.credits,
    duration_ms: e.durationMs,
    request_id: e.requestId,
    created_at: new Date().toISOString(),
  });
}
