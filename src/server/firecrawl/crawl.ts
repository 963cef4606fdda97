/**
 * POST /firecrawl/{v1,v2}/crawl starts an async crawl job of Trawl's (one credit when accepted)
 * and answers Firecrawl's `{success, id, url}`; status, errors and cancel are jobs.ts. Firecrawl's
 * crawl rules map onto the job: `limit`; `maxDiscoveryDepth` → link hops; v1's `maxDepth` → path
 * depth below the start URL; `includePaths`/`excludePaths` → regexes on the path (or the whole URL
 * with `regexOnFullURL`); the start URL's path bounds the crawl unless `crawlEntireDomain` (v1:
 * `allowBackwardLinks`); `allowSubdomains`; sitemaps unless `sitemap: "skip"` (v1:
 * `ignoreSitemap`); robots.txt unless `ignoreRobotsTxt`.
 */
import type { FastifyInstance } from 'fastify';
import { canonicalUrl } from '../../engine/crawl/canonical.js';
import { compilePattern, type LinkRules } from '../../engine/crawl/link-rules.js';
import type { CrawlJobOptions } from '../../jobs/crawl-item.js';
import type { ServerContext } from '../context.js';
import { startCrawl } from '../../app/crawl.js';
import { listJobs } from '../../app/jobs.js';
import { publicBase } from '../../app/stores.js';
import { parseWebhook, type FirecrawlJobTag } from '../../contract/firecrawl/webhook.js';
import { unsupported } from '../../contract/firecrawl/options.js';
import { CRAWL, jobRoutes, jobUrl } from './jobs.js';
import {
  bodyOf,
  boolAt,
  checkOptions,
  httpUrlAt,
  intIn,
  objectAt,
  onlyAt,
  refuse,
  sitemapWanted,
  stringsAt,
  type OptionTable,
} from '../../contract/firecrawl/options.js';
import {
  engineFormats,
  pageOptionsOf,
  planScrape,
  scrapeOptionTable,
  takesScreenshots,
  type Version,
} from '../../contract/firecrawl/scrape-options.js';
import { checkPageOptions } from '../../contract/page-options.js';
import { HIDDEN } from './shared.js';

/** Firecrawl's crawls have no depth limit but their page limit; Trawl's jobs need a number. */
const ANY_DEPTH = 1000;
/** Firecrawl's default page limit. */
const DEFAULT_LIMIT = 10_000;

function crawlTable(version: Version): OptionTable {
  const common: OptionTable = {
    url: 'map',
    includePaths: 'map',
    excludePaths: 'map',
    maxDiscoveryDepth: 'map',
    limit: 'map',
    crawlEntireDomain: 'map',
    allowSubdomains: 'map',
    regexOnFullURL: 'map',
    scrapeOptions: 'map',
    webhook: 'map',
    allowExternalLinks: onlyAt([false], 'Trawl crawls one site (allowSubdomains widens it to its subdomains)'),
    ignoreQueryParameters: onlyAt(
      [false],
      'Trawl fetches each canonical URL (tracking parameters dropped) once; query strings are kept',
    ),
    deduplicateSimilarURLs: onlyAt(
      [false],
      'Trawl deduplicates canonical URLs only (fragment, default port, tracking parameters)',
    ),
    delay: onlyAt(
      [0],
      "Trawl spaces requests per host by robots.txt's Crawl-delay; a delay of your own is not supported",
    ),
    maxConcurrency: refuse(
      "Trawl bounds concurrency per host and per account (TRAWL_ACCOUNT_CONCURRENCY); a job's own cap is not supported",
    ),
    zeroDataRetention: onlyAt([false], 'job results are kept for TRAWL_JOB_RETENTION_HOURS'),
    origin: 'tag',
    integration: 'tag',
  };
  if (version === 'v1') return { ...common, maxDepth: 'map', allowBackwardLinks: 'map', ignoreSitemap: 'map' };
  return {
    ...common,
    sitemap: 'map',
    ignoreRobotsTxt: 'map',
    prompt: refuse("a crawl planned from a prompt needs Firecrawl's LLM planner; give the crawl's options instead"),
    robotsUserAgent: refuse('Trawl reads robots.txt as its own user agent'),
  };
}

const depthOf = (path: string) => path.split('/').filter(Boolean).length;

function linkRules(o: Record<string, unknown>, start: URL, version: Version): LinkRules | undefined {
  const rules: LinkRules = {};
  const include = stringsAt(o.includePaths, 'includePaths', 50);
  const exclude = stringsAt(o.excludePaths, 'excludePaths', 50);
  include?.forEach((p, i) => compilePattern(p, `includePaths[${i}]`));
  exclude?.forEach((p, i) => compilePattern(p, `excludePaths[${i}]`));
  if (include?.length) rules.include = include;
  if (exclude?.length) rules.exclude = exclude;
  if (boolAt(o.regexOnFullURL, 'regexOnFullURL')) rules.fullUrl = true;
  if (version === 'v1' && o.maxDepth !== undefined)
    rules.maxPathDepth = depthOf(start.pathname) + intIn(o.maxDepth, 0, 100, 'maxDepth');
  // Firecrawl keeps to the start URL's path unless told to take the whole domain.
  const entire =
    boolAt(o.crawlEntireDomain, 'crawlEntireDomain') ??
    (version === 'v1' ? boolAt(o.allowBackwardLinks, 'allowBackwardLinks') : undefined) ??
    false;
  if (!entire && depthOf(start.pathname) > 0) rules.underPath = start.pathname;
  return Object.keys(rules).length ? rules : undefined;
}

export function crawlRoutes(app: FastifyInstance, ctx: ServerContext, version: Version): void {
  app.post(`/${version}/crawl`, HIDDEN, async (request) => {
    const o = checkOptions(bodyOf(request.body), crawlTable(version));
    if (typeof o.url === 'string' && /\/\*+$/.test(o.url))
      throw unsupported(
        'url',
        "URL wildcards (/*) are not supported; give the section's URL (e.g. https://example.com/blog): the crawl keeps to its path",
      );
    const url = canonicalUrl(httpUrlAt(o.url, 'url')) ?? (o.url as string);
    const scrapeOptions = checkOptions(
      objectAt(o.scrapeOptions, 'scrapeOptions'),
      scrapeOptionTable('crawl', version),
      'scrapeOptions.',
    );
    const plan = planScrape(scrapeOptions, { version, use: 'crawl', llm: !!ctx.engine.llm, at: 'scrapeOptions.' });
    // A crawl keeps HTML pages only: a PDF page limit has nothing to bound.
    const { pdf: _pdf, ...crawlPageOptions } = pageOptionsOf(plan);
    const useSitemap = sitemapWanted(
      o,
      version,
      '"only" is not supported: Trawl\'s crawl follows links, with the sitemap\'s URLs added ("include")',
    );
    const options: CrawlJobOptions & FirecrawlJobTag = {
      url,
      max_depth:
        o.maxDiscoveryDepth !== undefined ? intIn(o.maxDiscoveryDepth, 0, ANY_DEPTH, 'maxDiscoveryDepth') : ANY_DEPTH,
      limit: o.limit !== undefined ? intIn(o.limit, 1, 100_000, 'limit') : DEFAULT_LIMIT,
      allow_subdomains: boolAt(o.allowSubdomains, 'allowSubdomains'),
      respect_robots: version === 'v2' && boolAt(o.ignoreRobotsTxt, 'ignoreRobotsTxt') ? false : undefined,
      use_sitemap: useSitemap,
      formats: engineFormats(plan),
      schema: plan.schema as Record<string, unknown> | undefined,
      only_main_content: plan.onlyMainContent,
      link_rules: linkRules(o, new URL(url), version),
      ...crawlPageOptions,
      ...(takesScreenshots(plan) ? { files_base: publicBase(ctx, request) } : {}),
      firecrawl: { fields: plan.fields },
    };
    checkPageOptions({ ...options, url });
    const hook = parseWebhook(o.webhook, 'crawl');
    // As /v1/crawl (app/jobs.ts's openJob): the start URL, then the webhook's, then the credit.
    const { job, credits } = await startCrawl(
      ctx,
      request.auth!.accountId,
      options,
      hook && { url: hook.url, firecrawl: hook.hook },
    );
    request.creditsCharged = credits;
    const id = job.id;
    return { success: true, id, url: jobUrl(request, version, CRAWL, id) };
  });

  // The account's crawls still running (v2 SDK: getActiveCrawls).
  if (version === 'v2') {
    app.get('/v2/crawl/active', HIDDEN, async (request) => {
      const rows = await listJobs(ctx, request.auth!.accountId, 100);
      const crawls = rows
        .filter((j) => j.kind === 'crawl' && (j.state === 'queued' || j.state === 'running'))
        .map((j) => ({
          id: j.id,
          teamId: j.account_id,
          url: (JSON.parse(j.options) as CrawlJobOptions).url,
          options: null,
        }));
      return { success: true, crawls };
    });
  }
  jobRoutes(app, ctx, version, CRAWL);
}
