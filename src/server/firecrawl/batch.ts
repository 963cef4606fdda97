/**
 * POST /firecrawl/{v1,v2}/batch/scrape: a batch job of Trawl's (1–10,000 URLs, one credit when
 * accepted) with the scrape options at the top level, as Firecrawl takes them. With
 * `ignoreInvalidURLs` the URLs that are not http(s) are left out and listed in `invalidURLs`;
 * without it, one such URL is a 400 naming it. Status, errors and cancel are jobs.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { BatchOptions } from '../../jobs/runner.js';
import { startBatch } from '../../app/batch.js';
import { publicBase } from '../../app/stores.js';
import { parseWebhook, type FirecrawlJobTag } from '../../contract/firecrawl/webhook.js';
import type { ServerContext } from '../context.js';
import { readBody } from '../body-readers.js';
import { BATCH, jobRoutes, jobUrl } from './jobs.js';
import {
  engineFormats,
  pageOptionsOf,
  planScrape,
  takesScreenshots,
  type Version,
} from '../../contract/firecrawl/scrape-options.js';
import { checkPageOptions } from '../../contract/page-options.js';
import { HIDDEN } from './shared.js';
import { batchBody } from '../body-limits.js';

export function batchRoutes(app: FastifyInstance, ctx: ServerContext, version: Version): void {
  app.post(
    `/${version}/batch/scrape`,
    { ...HIDDEN, ...batchBody(`firecrawl_batch_${version}`) },
    async (request, reply) => {
      const { options: o, urls: unique, invalid, skipInvalid } = readBody(request.body, `firecrawl_batch_${version}`);
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
      const hook = parseWebhook(o.webhook, 'batch_scrape');
      // As /v1/batch/scrape (app/jobs.ts's openJob): the URLs, then the webhook's, then the credit.
      const { job, credits } = await startBatch(
        ctx,
        request.auth!.accountId,
        options,
        unique,
        hook && { url: hook.url, firecrawl: hook.hook },
      );
      request.creditsCharged = credits;
      const id = job.id;
      reply.code(200);
      return {
        success: true,
        id,
        url: jobUrl(request, version, BATCH, id),
        ...(skipInvalid ? { invalidURLs: invalid } : {}),
      };
    },
  );
  jobRoutes(app, ctx, version, BATCH);
}
