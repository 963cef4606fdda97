import type { FastifyInstance } from 'fastify';
import { TrawlError } from '../../errors.js';
import { crawlNow, crawlOptionsOf, startCrawl } from '../../app/crawl.js';
import { publicBase } from '../../app/stores.js';
import { trawlHook } from '../../app/jobs.js';
import type { ServerContext } from '../context.js';
import { presentJob } from '../present-job.js';
import { withCredit } from '../plugins/api-scope.js';
import { docs } from '../openapi-responses.js';
import { bodyRoute } from './body-route.js';
import { CrawlBody } from '../../contract/schemas.js';

export function crawlRoutes(app: FastifyInstance, ctx: ServerContext): void {
  bodyRoute(
    app,
    '/crawl',
    CrawlBody,
    'Crawl one site breadth-first to a depth and page limit',
    docs.crawl,
    async (body, request, reply) => {
      const accountId = request.auth!.accountId;
      const options = crawlOptionsOf(body, publicBase(ctx, request));
      if (body.async) {
        // A job: pages run on the job runners, read back from GET /v1/jobs/{id}.
        const { job, credits } = await startCrawl(ctx, accountId, options, trawlHook(body));
        request.creditsCharged = credits;
        reply.code(202);
        return { status: 'ok', job: presentJob(job) };
      }
      if (body.webhook || body.webhook_events)
        throw new TrawlError('invalid_request', 'webhook: only a job sends webhooks; add "async": true');
      if (options.limit > 1000)
        throw new TrawlError(
          'invalid_request',
          'limit: must be an integer from 1 to 1000 (up to 100000 with "async": true)',
        );
      // The same machinery as an async crawl (a job on the runners), answered when it ends.
      const result = await crawlNow(ctx, accountId, options, body.timeout_ms ?? 60_000, (work) =>
        withCredit(ctx, request, reply, work),
      );
      return { status: 'ok', ...result };
    },
  );
}
