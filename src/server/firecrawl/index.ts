/**
 * The Firecrawl-compatible surface (API.md section 8): under /firecrawl, Firecrawl's public API
 * (v2, and v1 for older clients) answered by Trawl's engine and jobs, so a Firecrawl client
 * given `apiUrl = {base}/firecrawl` and a Trawl key works unchanged. The scope is authenticated,
 * rate limited, charged and logged exactly as /v1 (api-scope.ts); only the shapes differ.
 */
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { registerApiScope } from '../plugins/api-scope.js';
import { batchRoutes } from './batch.js';
import { crawlRoutes } from './crawl.js';
import { registerFirecrawlErrors } from './errors.js';
import { extractRoutes } from './extract.js';
import { ExtractResults } from './extract-results.js';
import { mapRoutes } from './map.js';
import type { Version } from '../../contract/firecrawl/scrape-options.js';
import { scrapeRoutes } from './scrape.js';
import { searchRoutes } from './search.js';
import { usageRoutes } from './usage.js';

export function firecrawlRoutes(app: FastifyInstance, ctx: ServerContext): void {
  registerApiScope(app, ctx);
  registerFirecrawlErrors(app);
  const kept = new ExtractResults();
  for (const version of ['v1', 'v2'] as Version[]) {
    scrapeRoutes(app, ctx, version);
    crawlRoutes(app, ctx, version);
    batchRoutes(app, ctx, version);
    mapRoutes(app, ctx, version);
    searchRoutes(app, ctx, version);
    extractRoutes(app, ctx, version, kept);
    usageRoutes(app, ctx, version);
  }
}
