import type { FastifyInstance } from 'fastify';
import { canonicalUrl } from '../../engine/crawl/canonical.js';
import { TrawlError } from '../../errors.js';
import type { CrawlJobOptions } from '../../jobs/crawl-item.js';
import { presentJob } from './jobs.js';
import { crawlNow, startCrawl } from '../../app/crawl.js';
import { publicBase } from '../../app/stores.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { openapiRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';
import { CrawlBody } from '../../contract/schemas.js';
import { formatsAndSchema, parseBody } from '../../contract/validation.js';
import { BROWSER_PAGE_MS } from '../../engine/crawl/rich-page.js';
import type { ScrapeFormat } from '../../engine/scrape.js';
import { checkPageOptions } from '../../contract/page-options.js';

export function crawlRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post(
    '/crawl',
    openapiRoute(CrawlBody, 'Crawl one site breadth-first to a depth and page limit', docs.crawl),
    async (request, reply) => {
      const body = parseBody(CrawlBody, request.body);
      const { formats, schema } = formatsAndSchema(body.formats, body.schema);
      // timeout_ms bounds the whole crawl; each page's waits must fit in a rendered page's budget.
      checkPageOptions({ ...body, timeout_ms: undefined }, BROWSER_PAGE_MS);
      const shots =
        !!body.formats?.some((f) => f.startsWith('screenshot')) || !!body.actions?.some((a) => a.type === 'screenshot');
      const accountId = request.auth!.accountId;
      const url = canonicalUrl(body.url) ?? body.url;
      const options: CrawlJobOptions = {
        url,
        max_depth: body.max_depth,
        limit: body.limit ?? (body.async ? 1000 : 10),
        include_paths: body.include_paths,
        exclude_paths: body.exclude_paths,
        allow_subdomains: body.allow_subdomains,
        respect_robots: body.respect_robots,
        use_sitemap: body.use_sitemap,
        formats: (formats as ScrapeFormat[] | undefined) ?? (schema ? ['markdown', 'json'] : ['markdown']),
        schema: body.schema as Record<string, unknown> | undefined,
        only_main_content: body.only_main_content,
        render: body.render,
        wait_for: body.wait_for,
        screenshot_format: body.screenshot_format,
        viewport: body.viewport,
        actions: body.actions as CrawlJobOptions['actions'],
        headers: body.headers,
        cookies: body.cookies,
        mobile: body.mobile,
        location: body.location,
        max_age: body.max_age,
        // Bounds each page (a synchronous crawl's bounds the whole crawl as well, below).
        timeout_ms: body.timeout_ms,
        ...(shots ? { files_base: publicBase(ctx, request) } : {}),
      };
      if (body.async) {
        // A job: pages run on the job runners, read back from GET /v1/jobs/{id}.
        const job = await startCrawl(ctx, accountId, options, body);
        request.creditsCharged = 1;
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
