import type { FastifyInstance } from 'fastify';
import { charged } from '../../billing.js';
import { crawl } from '../../engine/index.js';
import { canonicalUrl } from '../../engine/crawl/canonical.js';
import { TrawlError } from '../../errors.js';
import type { CrawlJobOptions } from '../../jobs/crawl-item.js';
import { jobs, newId } from '../../store/index.js';
import { jobWebhook, presentJob, refuseForbidden } from './jobs.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { openapiRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';
import { CrawlBody } from '../schemas.js';
import { formatsAndSchema, parseBody } from '../validation.js';
import { BROWSER_PAGE_MS } from '../../engine/crawl/rich-page.js';
import type { ScrapeFormat } from '../../engine/scrape.js';
import { checkPageOptions, enginePageOptions, publicBase, scrapeStores } from '../scrape-options.js';

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
      if (body.async) {
        // A job: pages run on the job runners, read back from GET /v1/jobs/{id}.
        const id = newId('job');
        const accountId = request.auth!.accountId;
        const url = canonicalUrl(body.url) ?? body.url;
        const options: CrawlJobOptions = {
          url,
          max_depth: body.max_depth,
          limit: body.limit ?? 1000,
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
          // No budget for the whole job: it bounds each page, as a synchronous crawl's bounds its pages.
          timeout_ms: body.timeout_ms,
          ...(shots ? { files_base: publicBase(ctx, request) } : {}),
        };
        await refuseForbidden(ctx, url);
        const hook = await jobWebhook(ctx, body);
        await charged(ctx.store.db, accountId, () =>
          jobs.createJob(ctx.store.db, {
            id,
            accountId,
            kind: 'crawl',
            options,
            urls: [url],
            maxItems: options.limit,
            at: ctx.store.now().toISOString(),
            ...hook,
          }),
        );
        request.creditsCharged = 1;
        ctx.jobs?.wake();
        reply.code(202);
        return { status: 'ok', job: presentJob((await jobs.getJob(ctx.store.db, accountId, id))!) };
      }
      if (body.webhook || body.webhook_events)
        throw new TrawlError('invalid_request', 'webhook: only a job sends webhooks; add "async": true');
      if ((body.limit ?? 10) > 1000)
        throw new TrawlError(
          'invalid_request',
          'limit: must be an integer from 1 to 1000 (up to 100000 with "async": true)',
        );
      const accountId = request.auth!.accountId;
      const { formats: _formats, ...page } = enginePageOptions(body);
      const stores = scrapeStores(ctx, accountId, publicBase(ctx, request), body.max_age);
      const result = await withCredit(ctx, request, reply, (signal, engine) =>
        crawl(engine, {
          url: body.url,
          maxDepth: body.max_depth,
          limit: body.limit,
          includePaths: body.include_paths,
          excludePaths: body.exclude_paths,
          allowSubdomains: body.allow_subdomains,
          respectRobots: body.respect_robots,
          useSitemap: body.use_sitemap,
          formats: (formats as ScrapeFormat[] | undefined) ?? (schema ? ['markdown', 'json'] : ['markdown']),
          schema,
          onlyMainContent: body.only_main_content,
          timeoutMs: body.timeout_ms,
          render: body.render,
          page: { ...page, waitFor: body.wait_for, ...stores },
          signal,
        }),
      );
      return { status: 'ok', ...result };
    },
  );
}
