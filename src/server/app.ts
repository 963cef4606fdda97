/**
 * Builds the Fastify application: request ids, one error handler, the public routes
 * (health, readiness, metrics, the OpenAPI document and its reference at /docs), the
 * authenticated /v1 scope with its routes, and the Firecrawl-compatible /firecrawl scope.
 */
import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyRequest, LogController } from 'fastify';
import swagger from '@fastify/swagger';
import { configSecrets, createRedactor, type Redactor } from '../redact.js';
import { newId } from '../store/ids.js';
import type { ServerContext } from './context.js';
import { clientErrorHandler } from './client-errors.js';
import { capConnectionsPerAddress } from './connections.js';
import { BODY_LIMIT } from '../contract/limits.js';
import { readBodyBytes } from './body-bytes.js';
import { BodyPool } from './body-pool.js';
import { ReadBody } from './body-readers.js';
import { parseJsonBody } from './json-body.js';
import { TrawlError } from '../errors.js';
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
import { channelRoutes } from './routes/channels.js';
import { browserSessionRoutes } from './routes/browser-sessions.js';
import { marketplaceRoutes } from './routes/marketplace.js';
import { metaAdsRoutes } from './routes/meta-ads.js';
import { fileRoutes } from './routes/files.js';
import { dashboardRoutes } from '../web/routes.js';
import { MemoryTokenBuckets } from './token-bucket.js';
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
    // Quiet by default (issue 43): not Fastify's two info lines per request ("incoming request",
    // "request completed") but one line at debug, written when the answer went (below).
    logController: new LogController({ disableRequestLogging: true }),
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
    // `__proto__` keys stay plain data (JSON.parse keeps them so); parseBody refuses them naming where (validation.ts).
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
  // JSON bodies, read as bytes (body-bytes.ts): up to 1 MiB parsed here (json-body.ts); larger
  // ones (the batch routes') parsed and validated by their route's reader on a body worker.
  const bodies = new BodyPool({ size: ctx.config.bodyWorkers });
  app.addHook('onClose', () => bodies.close());
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', async (request: FastifyRequest, payload: IncomingMessage) => {
    const bytes = await readBodyBytes(request, payload);
    const reader = request.routeOptions.config?.bodyReader;
    if (bytes.length <= BODY_LIMIT || !reader) return parseJsonBody(bytes.toString('utf8'));
    // A client gone while its body waits for a worker takes it out of the queue.
    const gone = new AbortController();
    const socket = request.raw.socket;
    const onClose = () => gone.abort(new TrawlError('invalid_request', 'the client closed the connection'));
    socket?.once('close', onClose);
    try {
      const owner = request.auth?.accountId ?? request.ip;
      return new ReadBody(reader, await bodies.read(owner, bytes, reader, gone.signal));
    } finally {
      socket?.off('close', onClose);
    }
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    // (pino's level check: nothing is built for a line that would not be written.)
    if ((request.log as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled?.('debug'))
      request.log.debug(
        { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
        'request',
      );
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
        { name: 'Notifications', description: 'Channels a person reads: email, Slack, Discord, Teams, Telegram, JSON' },
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
      channelRoutes(v1, ctx);
      browserSessionRoutes(v1, ctx);
      marketplaceRoutes(v1, ctx);
      metaAdsRoutes(v1, ctx);
    },
    { prefix: '/v1' },
  );
  // Firecrawl's API shapes over the same keys, credits and limits (API.md section 8).
  await app.register(async (fc) => firecrawlRoutes(fc, ctx), { prefix: '/firecrawl' });
  // The dashboard: its own scope (form bodies, HTML errors), session cookies, no API keys.
  await app.register(async (web) => dashboardRoutes(web, ctx, new MemoryTokenBuckets()));
  return app;
}
