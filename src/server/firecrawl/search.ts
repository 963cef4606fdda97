/**
 * POST /firecrawl/{v1,v2}/search: Trawl's search (the configured provider, re-ranked). Results
 * are fetched and re-ranked by their content only when `scrapeOptions.formats` asks for
 * markdown, as Firecrawl scrapes only then; scraped results carry `markdown`, `metadata` and
 * Trawl's quotable `highlights`. v2 answers `{data: {web: […]}}`, v1 `{data: […]}`.
 */
import type { FastifyInstance } from 'fastify';
import { search, type SearchResult } from '../../engine/index.js';
import { invalidRequest, TrawlError } from '../../errors.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { unsupported } from '../../contract/firecrawl/options.js';
import {
  bodyOf,
  boolAt,
  checkOptions,
  intIn,
  objectAt,
  onlyAt,
  permits,
  refuse,
  type OptionTable,
} from '../../contract/firecrawl/options.js';
import { planScrape, scrapeOptionTable, type Version } from '../../contract/firecrawl/scrape-options.js';
import { HIDDEN } from './shared.js';

function searchTable(version: Version): OptionTable {
  const common: OptionTable = {
    query: 'map',
    limit: 'map',
    country: 'map',
    timeout: 'map',
    scrapeOptions: 'map',
    ignoreInvalidURLs: permits('every result Trawl answers is an http(s) URL'),
    tbs: refuse("time-based filters are not supported by Trawl's search providers"),
    location: refuse('Trawl searches from where it runs; use country'),
    filter: refuse('search filters are not supported'),
    origin: 'tag',
    integration: 'tag',
  };
  if (version === 'v1') return { ...common, lang: 'map' };
  return {
    ...common,
    sources: 'map',
    highlights: 'map',
    categories: refuse('search categories are not supported'),
    includeDomains: refuse('domain filters are not supported; put site: in the query'),
    excludeDomains: refuse('domain filters are not supported; put -site: in the query'),
    enterprise: refuse('enterprise search is a Firecrawl cloud feature'),
    threatProtection: refuse('threat protection is a Firecrawl cloud feature'),
    domainTools: onlyAt([false], 'domain tools are a Firecrawl cloud feature'),
    toolDetail: refuse('domain tools are a Firecrawl cloud feature'),
  };
}

function checkSources(v: unknown): void {
  if (v === undefined) return;
  if (!Array.isArray(v)) throw invalidRequest('sources: must be an array such as ["web"]');
  v.forEach((s, i) => {
    const type = typeof s === 'object' && s !== null ? (s as { type?: unknown }).type : s;
    if (typeof s === 'object' && s !== null && Object.keys(s).some((k) => k !== 'type'))
      throw unsupported(`sources[${i}]`, 'source options are not supported');
    if (type !== 'web')
      throw unsupported(`sources[${i}]`, `only "web" results are supported, not ${JSON.stringify(type)}`);
  });
}

/** One result as Firecrawl lists it, with the page's content when it was scraped. */
function resultOf(r: SearchResult, highlights: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { url: r.url, title: r.title, description: r.snippet, position: r.position };
  if (r.markdown === undefined) return out;
  out.markdown = r.markdown;
  if (highlights && r.highlights.length) out.highlights = r.highlights.map((h) => h.text).join('\n\n');
  out.metadata = {
    title: r.title,
    sourceURL: r.url,
    url: r.url,
    ...(r.published_at ? { publishedTime: r.published_at } : {}),
  };
  return out;
}

export function searchRoutes(app: FastifyInstance, ctx: ServerContext, version: Version): void {
  app.post(`/${version}/search`, HIDDEN, async (request, reply) => {
    const o = checkOptions(bodyOf(request.body), searchTable(version));
    if (typeof o.query !== 'string' || !o.query.trim() || o.query.length > 400)
      throw invalidRequest('query: must be a string of 1 to 400 characters');
    checkSources(o.sources);
    const limit =
      o.limit !== undefined ? intIn(o.limit, 1, 20, 'limit', "Trawl's search answers at most 20 results") : 5;
    const timeoutMs = o.timeout !== undefined ? intIn(o.timeout, 1000, 60_000, 'timeout', 'milliseconds') : undefined;
    if (o.country !== undefined && (typeof o.country !== 'string' || !/^[A-Za-z]{2}$/.test(o.country)))
      throw invalidRequest('country: must be an ISO 3166-1 alpha-2 code such as "us"');
    if (o.lang !== undefined && (typeof o.lang !== 'string' || !/^[A-Za-z]{2}(?:-[A-Za-z]{2})?$/.test(o.lang)))
      throw invalidRequest('lang: must be an ISO 639-1 code such as "en"');
    const highlights = boolAt(o.highlights, 'highlights') ?? true;
    const scrapeOptions = checkOptions(
      objectAt(o.scrapeOptions, 'scrapeOptions'),
      scrapeOptionTable('search', version),
      'scrapeOptions.',
    );
    const plan = planScrape(scrapeOptions, { version, use: 'search', llm: !!ctx.engine.llm, at: 'scrapeOptions.' });
    const provider = ctx.engine.searchProvider;
    if (!provider)
      throw new TrawlError(
        'fetch_failed',
        `search is not configured on this server: ${ctx.engine.searchProviderError ?? 'no provider'}`,
      );
    const r = await withCredit(ctx, request, reply, (signal, engine) =>
      search(engine, provider, {
        query: o.query as string,
        limit,
        scrape: plan.fields.includes('markdown'),
        country: (o.country as string | undefined)?.toUpperCase(),
        language: (o.lang as string | undefined)?.toLowerCase(),
        timeoutMs,
        signal,
      }),
    );
    const results = r.results.map((x) => resultOf(x, highlights));
    return version === 'v1' ? { success: true, data: results } : { success: true, data: { web: results } };
  });
}
