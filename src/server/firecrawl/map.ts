/**
 * POST /firecrawl/{v1,v2}/map: Trawl's map (sitemaps and a fast link harvest, no content).
 * v2 answers links as `{url, title?}` and, as Firecrawl does by default, without query strings
 * (`ignoreQueryParameters: false` keeps them); v1 answers plain URL strings.
 */
import type { FastifyInstance } from 'fastify';
import { mapSite, type MapResult } from '../../engine/index.js';
import { invalidRequest } from '../../errors.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import {
  bodyOf,
  boolAt,
  checkOptions,
  httpUrlAt,
  intIn,
  onlyAt,
  permits,
  refuse,
  sitemapWanted,
  type OptionTable,
} from '../../contract/firecrawl/options.js';
import type { Version } from '../../contract/firecrawl/scrape-options.js';
import { HIDDEN } from './shared.js';

/** Firecrawl's default number of links. */
const DEFAULT_LIMIT = 5000;

function mapTable(version: Version): OptionTable {
  const common: OptionTable = {
    url: 'map',
    search: 'map',
    includeSubdomains: 'map',
    limit: 'map',
    timeout: 'map',
    location: refuse('Trawl fetches from where it runs; location is not supported'),
    auditMetadata: refuse('audit metadata is a Firecrawl cloud feature'),
    origin: 'tag',
    integration: 'tag',
  };
  if (version === 'v1')
    return {
      ...common,
      ignoreSitemap: 'map',
      sitemapOnly: onlyAt([false], 'Trawl maps from sitemaps and links together'),
      useIndex: permits('Trawl keeps no index, so the site is read now'),
    };
  return {
    ...common,
    sitemap: 'map',
    ignoreQueryParameters: 'map',
    threatProtection: refuse('threat protection is a Firecrawl cloud feature'),
  };
}

/** The links without their query strings, first of each kept. */
function withoutQueries(links: MapResult['links']): MapResult['links'] {
  const seen = new Map<string, MapResult['links'][number]>();
  for (const l of links) {
    const u = new URL(l.url);
    u.search = '';
    const key = u.href;
    if (!seen.has(key)) seen.set(key, { ...l, url: key });
  }
  return [...seen.values()];
}

export function mapRoutes(app: FastifyInstance, ctx: ServerContext, version: Version): void {
  app.post(`/${version}/map`, HIDDEN, async (request, reply) => {
    const o = checkOptions(bodyOf(request.body), mapTable(version));
    const url = httpUrlAt(o.url, 'url');
    if (o.search !== undefined && (typeof o.search !== 'string' || !o.search.length || o.search.length > 400))
      throw invalidRequest('search: must be a string of 1 to 400 characters');
    const useSitemap = sitemapWanted(
      o,
      version,
      '"only" is not supported: Trawl maps from sitemaps and links together ("include")',
    );
    const limit = o.limit !== undefined ? intIn(o.limit, 1, 30_000, 'limit') : DEFAULT_LIMIT;
    const timeoutMs = o.timeout !== undefined ? intIn(o.timeout, 1000, 120_000, 'timeout', 'milliseconds') : undefined;
    const allowSubdomains = boolAt(o.includeSubdomains, 'includeSubdomains');
    const dropQueries = version === 'v2' && (boolAt(o.ignoreQueryParameters, 'ignoreQueryParameters') ?? true);
    const r = await withCredit(ctx, request, reply, (signal, engine) =>
      mapSite(engine, {
        url,
        limit,
        search: o.search as string | undefined,
        useSitemap,
        allowSubdomains,
        timeoutMs,
        signal,
      }),
    );
    const links = dropQueries ? withoutQueries(r.links) : r.links;
    if (version === 'v1') return { success: true, links: links.map((l) => l.url) };
    return { success: true, links: links.map((l) => (l.title ? { url: l.url, title: l.title } : { url: l.url })) };
  });
}
