/**
 * POST /firecrawl/{v1,v2}/batch/scrape: a batch job of Trawl's (1–10,000 URLs, one credit when
 * accepted) with the scrape options at the top level, as Firecrawl takes them. With
 * `ignoreInvalidURLs` the URLs that are not http(s) are left out and listed in `invalidURLs`;
 * without it, one such URL is a 400 naming it. Status, errors and cancel are jobs.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { BatchOptions } from '../../jobs/runner.js';
import { startJob } from '../../app/jobs.js';
import { refuseAllForbidden } from '../../app/targets.js';
import { publicBase } from '../../app/stores.js';
import { startedEvents, webhookOf } from '../../app/firecrawl-events.js';
import type { FirecrawlJobTag } from '../../contract/firecrawl/webhook.js';
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
      const accountId = request.auth!.accountId;
      const { id } = await startJob(ctx, {
        accountId,
        kind: 'batch',
        options,
        urls: unique,
        maxItems: unique.length,
        webhook: hook?.url,
        startEvents: (id) => (hook ? startedEvents(hook.hook, id) : []),
      });
      request.creditsCharged = 1;
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
