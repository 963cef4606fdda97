/**
 * Builds the Fastify application: request ids, one error handler, the public routes
 * (health, readiness, metrics, the OpenAPI document and its reference at /docs), the
 * authenticated /v1 scope with its routes, and the Firecrawl-compatible /firecrawl scope.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { configSecrets, createRedactor, type Redactor } from '../redact.js';
import { newId } from '../store/ids.js';
import type { ServerContext } from './context.js';
import { clientErrorHandler } from './client-errors.js';
import { capConnectionsPerAddress } from './connections.js';
import { MAX_JSON_DEPTH, jsonTooDeepAt } from './validation.js';
import { BODY_LIMIT } from './body-limits.js';
import { invalidRequest } from '../errors.js';
import { registerApiScope } from './plugins/api-scope.js';
import { registerErrorHandling } from './plugins/errors.js';
import { accountRoutes } from './routes/account.js';
import { scrapeRoutes } from './routes/scrape.js';
import { extractRoutes } from './routes/extract.js';
import { crawlRoutes } from './routes/crawl.js';
import { mapRoutes } from './routes/map.js';
import { jobRoutes } from './routes/jobs.js';
import { searchRoutes } from './routes/search.js';
import { monitorRoutes } from './routes/monitors.js';
import { webhookRoutes } from './routes/webhooks.js';
import { marketplaceRoutes } from './routes/marketplace.js';
import { metaAdsRoutes } from './routes/meta-ads.js';
import { fileRoutes } from './routes/files.js';
import { dashboardRoutes } from '../web/routes.js';
import { firecrawlRoutes } from './firecrawl/index.js';
import { registerDocs } from './ops/docs.js';
import { healthRoutes } from './ops/health.js';
import { countRequests, metricsRoutes } from './ops/metrics.js';
import { OpsRedis } from './ops/redis.js';

/** Pino options whose every line is redacted as it is written (any field, any message). */
function withRedaction(logger: boolean | object, redact: Redactor): boolean | object {
  if (logger === false) return false;
  const o = (logger === true ? {} : logger) as { hooks?: object };
  return { ...o, hooks: { ...o.hooks, streamWrite: redact } };
}

/** `redact` defaults to one built from `config` (startService passes the process's own). */
export async function buildServer(
  given: Omit<ServerContext, 'redact'> & { redact?: Redactor },
  options: { logger?: boolean | object } = {},
): Promise<FastifyInstance> {
  const ctx: ServerContext = { ...given, redact: given.redact ?? createRedactor(configSecrets(given.config)) };
  const { redact } = ctx;
  const timeout = ctx.config.requestTimeoutMs;
  const app = Fastify({
    // A request (headers and body) that has not fully arrived in time is cut off with 408
    // (client-errors.ts). Node checks these deadlines only every connectionsCheckingInterval
    // (30 s by default), so check often enough for the deadline to hold.
    requestTimeout: timeout,
    http: {
      requestTimeout: timeout,
      headersTimeout: timeout,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeout / 4))),
    },
    logger: withRedaction(options.logger ?? false, redact),
    bodyLimit: BODY_LIMIT,
    genReqId: () => newId('req', 16),
    requestIdHeader: false,
    return503OnClosing: true,
    clientErrorHandler,
    // A path Fastify cannot decode (`/%`) answers in the contract's shape, like every other 400.
    frameworkErrors: (error, _request, reply) => {
      const r = reply as unknown as { code(n: number): { send(b: object): void } };
      if (error.code === 'FST_ERR_BAD_URL')
        r.code(400).send({
          error: 'invalid_request',
          detail: 'path: not a valid URL (broken percent-encoding); encode it again',
        });
      else r.code(500).send({ error: 'internal_error' });
    },
    // `__proto__` keys stay plain data; parseBody refuses them naming where (validation.ts).
    onProtoPoisoning: 'ignore',
    routerOptions: { ignoreTrailingSlash: true },
  });
  capConnectionsPerAddress(app.server, ctx.config.maxConnectionsPerIp);
  // Zod validates bodies in the routes (worded errors); route JSON Schemas are documentation.
  app.setValidatorCompiler(() => () => true);
  // Response schemas too: answers are JSON.stringify'd as the routes build them, never filtered
  // or coerced by a schema (Fastify's default would drop fields a schema does not list).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // Only JSON bodies are accepted: anything else is 415 unsupported_media_type.
  app.removeContentTypeParser('text/plain');
  // JSON bodies: Fastify's parser, after a nesting-depth check (a body 20,000 levels deep
  // would otherwise overflow the stack in validation and answer 500).
  const parseJson = app.getDefaultJsonParser('ignore', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // An empty body is no body (curl -H and SDKs send a DELETE so): a body-less route answers
    // as without it, a route that needs one says the body was empty (parseBody).
    if (!(body as string).trim()) {
      done(null, undefined);
      return;
    }
    const at = jsonTooDeepAt(body as string);
    if (at !== undefined) {
      done(
        invalidRequest(
          `body: nested more than ${MAX_JSON_DEPTH} levels deep (at character ${at}); send a flatter body`,
        ),
        undefined,
      );
      return;
    }
    parseJson(request, body as string, done);
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerErrorHandling(app, redact);
  countRequests(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Trawl API',
        version: '1',
        description:
          'Web data extraction: scrape, crawl, search, extract, marketplaces, ad library, monitors. Every /v1 request needs `Authorization: Bearer trawl_…`; failures answer `{"error": code, "detail"}` (see each operation\'s error responses).',
      },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: "An API key: trawl keys create --email … (or the dashboard's API keys page)",
          },
        },
      },
      tags: [
        { name: 'Scrape', description: 'One page to markdown, HTML, links and schema JSON' },
        { name: 'Extract', description: 'Schema-guided JSON from several pages, merged' },
        { name: 'Crawl', description: 'A site breadth-first, or its URLs (map)' },
        { name: 'Jobs', description: 'Async crawls and batch scrapes, read page by page' },
        { name: 'Search', description: 'Web search with quotable passages' },
        { name: 'Marketplaces', description: 'Product records from six marketplaces' },
        { name: 'Ad library', description: 'Facebook/Instagram ads of an advertiser' },
        { name: 'Monitors', description: 'Pages watched on an interval, with change webhooks' },
        { name: 'Webhooks', description: 'Deliveries, redelivery and replay' },
        { name: 'Account', description: 'The calling account' },
        { name: 'Operations', description: 'Liveness and readiness (public)' },
      ],
    },
  });
  await registerDocs(app);

  // The operator endpoints share one fail-fast Redis connection (when there is a Redis).
  const opsRedis = ctx.config.redisUrl ? new OpsRedis(ctx.config.redisUrl) : undefined;
  if (opsRedis) app.addHook('onClose', () => opsRedis.close());
  healthRoutes(app, ctx, opsRedis);
  metricsRoutes(app, ctx, opsRedis);
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // Screenshots: public behind unguessable ids (no key), so outside the /v1 scope's auth.
  fileRoutes(app, ctx);

  await app.register(
    async (v1) => {
      registerApiScope(v1, ctx);
      accountRoutes(v1, ctx);
      scrapeRoutes(v1, ctx);
      extractRoutes(v1, ctx);
      crawlRoutes(v1, ctx);
      mapRoutes(v1, ctx);
      jobRoutes(v1, ctx);
      searchRoutes(v1, ctx);
      monitorRoutes(v1, ctx);
      webhookRoutes(v1, ctx);
      marketplaceRoutes(v1, ctx);
      metaAdsRoutes(v1, ctx);
    },
    { prefix: '/v1' },
  );
  // Firecrawl's API shapes over the same keys, credits and limits (API.md section 8).
  await app.register(async (fc) => firecrawlRoutes(fc, ctx), { prefix: '/firecrawl' });
  // The dashboard: its own scope (form bodies, HTML errors), session cookies, no API keys.
  await app.register(async (web) => dashboardRoutes(web, ctx));
  return app;
}
