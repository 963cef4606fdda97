/**
 * A web search for an account (/v1/search, the dashboard's playground): refused up front when the
 * service has no search provider, else the engine's options from the request in one place, held
 * to the request's time budget.
 */
import { search } from '../engine/index.js';
import { TrawlError } from '../errors.js';
import type { SearchBody } from '../contract/schemas.js';
import { withinBudget, type Work } from './budget.js';
import type { AppContext } from './context.js';

/** Why this service cannot search (no provider configured), or undefined when it can. */
export function searchUnavailable(ctx: AppContext): string | undefined {
  return ctx.engine.searchProvider ? undefined : (ctx.engine.searchProviderError ?? 'no provider');
}

export function searchWork(ctx: AppContext, body: SearchBody): Work<Awaited<ReturnType<typeof search>>> {
  const provider = ctx.engine.searchProvider;
  if (!provider)
    throw new TrawlError('fetch_failed', `search is not configured on this server: ${searchUnavailable(ctx)}`);
  return withinBudget(body.timeout_ms ?? 20_000, (signal, engine) =>
    search(engine, provider, {
      query: body.query,
      limit: body.limit,
      scrape: body.scrape,
      country: body.country?.toUpperCase(),
      language: body.language?.toLowerCase(),
      timeoutMs: body.timeout_ms,
      signal,
    }),
  );
}
