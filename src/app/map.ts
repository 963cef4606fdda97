/**
 * A site's URLs for an account (/v1/map, the dashboard's playground): the engine's options from
 * the request in one place, held to the request's time budget.
 */
import { mapSite } from '../engine/index.js';
import type { MapBody } from '../contract/schemas.js';
import { withinBudget, type Work } from './budget.js';

export function mapWork(body: MapBody): Work<Awaited<ReturnType<typeof mapSite>>> {
  return withinBudget(body.timeout_ms ?? 30_000, (signal, engine) =>
    mapSite(engine, {
      url: body.url,
      limit: body.limit,
      search: body.search,
      useSitemap: body.use_sitemap,
      allowSubdomains: body.allow_subdomains,
      timeoutMs: body.timeout_ms,
      signal,
    }),
  );
}
