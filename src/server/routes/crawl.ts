import type { FastifyInstance } from 'fastify';
import { crawl } from '../../engine/index.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { openapiRoute } from '../openapi.js';
import { CrawlBody } from '../schemas.js';
import { formatsAndSchema, parseBody } from '../validation.js';

export function crawlRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post('/crawl', openapiRoute(CrawlBody, 'Crawl one site breadth-first to a depth and page limit'), async (request, reply) => {
    const body = parseBody(CrawlBody, request.body);
    const { formats, schema } = formatsAndSchema(body.formats, body.schema);
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
        formats: formats ?? (schema ? ['markdown', 'json'] : ['markdown']),
        schema,
        onlyMainContent: body.only_main_content,
        timeoutMs: body.timeout_ms,
        signal,
      }),
    );
    return { status: 'ok', ...result };
  });
}
