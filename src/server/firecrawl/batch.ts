/**
 * POST /firecrawl/{v1,v2}/batch/scrape: a batch job of Trawl's (1–10,000 URLs, one credit when
 * accepted) with the scrape options at the top level, as Firecrawl takes them. With
 * `ignoreInvalidURLs` the URLs that are not http(s) are left out and listed in `invalidURLs`;
 * without it, one such URL is a 400 naming it. Status, errors and cancel are jobs.ts.
 */
import type { FastifyInstance } from 'fastify';
import { charged } from '../../billing.js';
import { invalidRequest } from '../../errors.js';
import type { BatchOptions } from '../../jobs/runner.js';
import { jobs as repo, newId } from '../../store/index.js';
import type { ServerContext } from '../context.js';
import { httpUrl } from '../validation.js';
import { BATCH, jobRoutes, jobUrl, type FirecrawlJobTag } from './jobs.js';
import { bodyOf, boolAt, checkOptions, onlyAt, refuse } from './options.js';
import {
  engineFormats,
  pageOptionsOf,
  planScrape,
  scrapeOptionTable,
  takesScreenshots,
  type Version,
} from './scrape-options.js';
import { checkPageOptions, publicBase } from '../scrape-options.js';
import { HIDDEN } from './shared.js';
import { BATCH_BODY, MAX_BATCH_URLS } from '../body-limits.js';
import { refuseAllForbidden, uniqueUrls } from '../batch-urls.js';
import { startedEvents, webhookOf } from './webhook.js';

const URL_CHECK = httpUrl();

export function batchRoutes(app: FastifyInstance, ctx: ServerContext, version: Version): void {
  app.post(`/${version}/batch/scrape`, { ...HIDDEN, ...BATCH_BODY }, async (request, reply) => {
    const o = checkOptions(bodyOf(request.body), {
      ...scrapeOptionTable('batch', version),
      urls: 'map',
      ignoreInvalidURLs: 'map',
      webhook: 'map',
      appendToId: refuse('a batch cannot grow once started; start another batch'),
      maxConcurrency: refuse(
        "Trawl bounds concurrency per host and per account (TRAWL_ACCOUNT_CONCURRENCY); a job's own cap is not supported",
      ),
      zeroDataRetention: onlyAt([false], 'job results are kept for TRAWL_JOB_RETENTION_HOURS'),
    });
    const skipInvalid = boolAt(o.ignoreInvalidURLs, 'ignoreInvalidURLs') ?? false;
    if (!Array.isArray(o.urls) || !o.urls.length || o.urls.length > MAX_BATCH_URLS)
      throw invalidRequest(`urls: must be an array of 1 to ${MAX_BATCH_URLS} http or https URLs`);
    const urls: string[] = [];
    const invalid: string[] = [];
    o.urls.forEach((u: unknown, i: number) => {
      if (URL_CHECK.safeParse(u).success) urls.push(u as string);
      else if (skipInvalid) invalid.push(String(u));
      else
        throw invalidRequest(
          `urls[${i}]: must be an http or https URL (or send "ignoreInvalidURLs": true to leave such URLs out)`,
        );
    });
    if (!urls.length) throw invalidRequest('urls: none is an http or https URL');
    // A job scrapes each URL once: a URL listed twice (in any spelling) answers one document.
    const unique = uniqueUrls(urls);
    await refuseAllForbidden(ctx, unique);
    const plan = planScrape(o, { version, use: 'batch', llm: !!ctx.engine.llm });
    const options: BatchOptions & FirecrawlJobTag = {
      formats: engineFormats(plan),
      schema: plan.schema as Record<string, unknown> | undefined,
      only_main_content: plan.onlyMainContent,
      timeout_ms: plan.timeoutMs,
      ...pageOptionsOf(plan),
      ...(takesScreenshots(plan) ? { files_base: publicBase(ctx, request) } : {}),
      firecrawl: { fields: plan.fields },
    };
    checkPageOptions({ ...options, urls: unique });
    const hook = await webhookOf(ctx, o.webhook, 'batch_scrape');
    if (hook) options.firecrawl!.webhook = hook.hook;
    const id = newId('job');
    const accountId = request.auth!.accountId;
    await charged(ctx.store.db, accountId, () =>
      repo.createJob(
        ctx.store.db,
        {
          id,
          accountId,
          kind: 'batch',
          options,
          urls: unique,
          maxItems: unique.length,
          at: ctx.store.now().toISOString(),
          webhook: hook?.url,
        },
        hook ? startedEvents(hook.hook, id) : [],
      ),
    );
    request.creditsCharged = 1;
    ctx.jobs?.wake();
    reply.code(200);
    return {
      success: true,
      id,
      url: jobUrl(request, version, BATCH, id),
      ...(skipInvalid ? { invalidURLs: invalid } : {}),
    };
  });
  jobRoutes(app, ctx, version, BATCH);
}
