/** Small pieces every /firecrawl route uses. */
import type { FastifyRequest } from 'fastify';
import type { Version } from '../../contract/firecrawl/scrape-options.js';

/** Firecrawl's paths stay out of Trawl's OpenAPI document (docs/FIRECRAWL.md describes them). */
export const HIDDEN = { schema: { hide: true } } as const;

/**
 * The absolute base of this surface as the caller reached it (`http://host:port/firecrawl/v2`):
 * Firecrawl answers job URLs and `next` pages as absolute URLs, and its SDKs follow them as given.
 */
export function apiBase(request: FastifyRequest, version: Version): string {
  return `${request.protocol}://${request.host}/firecrawl/${version}`;
}
