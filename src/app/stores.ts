/**
 * The engine's ports as an account sees them: where its screenshots go (the store's file sink)
 * and its view of the result cache (`max_age`). The adapters live here, not in the engine.
 */
import type { FileSink, ScrapeCache } from '../engine/scrape.js';
import { fileSink, StoreResultCache } from './scrape-stores.js';
import type { AppContext } from './context.js';

/** The address clients reach the service at: TRAWL_PUBLIC_URL, else the one this request came to. */
export const publicBase = (ctx: AppContext, request: { protocol: string; host: string }) =>
  ctx.config.publicUrl ?? `${request.protocol}://${request.host}`;

export function resultCacheOf(ctx: AppContext): StoreResultCache {
  return (ctx.resultCache ??= new StoreResultCache(ctx.store, ctx.config.cacheMaxBytes));
}

/** Where one account's screenshots go (URLs on `base`), and its view of the cache when max_age asks for it. */
export function scrapeStores(
  ctx: AppContext,
  accountId: string,
  base: string,
  maxAge?: number,
): { files: FileSink; cache?: ScrapeCache } {
  return {
    files: fileSink(ctx.store, {
      base,
      retentionHours: ctx.config.fileRetentionHours,
      accountId,
      maxAccountBytes: ctx.config.filesMaxBytesPerAccount,
    }),
    cache: maxAge
      ? { store: resultCacheOf(ctx).for(accountId, base), maxAgeMs: maxAge, account: accountId }
      : undefined,
  };
}
