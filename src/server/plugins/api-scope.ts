/**
 * The authenticated /v1 scope. Hooks run in the contract's order: auth → rate limit (both
 * before the body is parsed) → body validation (in the route) → credits → work; a body over
 * 1 MiB has its credit checked before it is read (large-bodies.ts). Every
 * authenticated request leaves one usage row (account, key, endpoint, status, credits,
 * duration, request id).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { chargedWork } from '../../app/billing.js';
import type { Work } from '../../app/budget.js';
import { isTrawlError, TrawlError } from '../../errors.js';
import { recordUsage } from '../../app/usage.js';
import type { ServerContext } from '../context.js';
import { makeAuthenticate } from './auth.js';
import { announcesLargeBody, makeLargeBodyGate } from './large-bodies.js';

export function registerApiScope(app: FastifyInstance, ctx: ServerContext): void {
  const authenticate = makeAuthenticate(ctx);
  const admitLargeBody = makeLargeBodyGate(ctx);
  app.decorateRequest('auth', undefined);
  app.decorateRequest('creditsCharged', 0);
  // Fastify only times replies when a logger or an onResponse hook is there: time them here.
  app.decorateRequest('startedAt', 0);

  app.addHook('onRequest', async (request, reply) => {
    request.startedAt = performance.now();
    // A large body refused from its headers (401, 429, 402) would otherwise be read to its end so
    // the connection could serve again: up to 80 MB received for nothing, each time. Closed instead.
    if (announcesLargeBody(request)) reply.header('connection', 'close');
    request.auth = await authenticate(request);
    const v = await ctx.rateLimiter.take(request.auth.keyId, request.auth.rateLimitPerMinute);
    reply.header('x-ratelimit-limit', String(v.limit));
    reply.header('x-ratelimit-remaining', String(v.remaining));
    reply.header('x-ratelimit-reset', String(v.reset));
    if (!v.allowed) throw new TrawlError('rate_limited', undefined, { fields: { retry_after: v.retryAfter } });
    await admitLargeBody(request, reply);
  });

  // Written before the answer leaves (onSend), so a client that has its response can
  // already see the request in its usage.
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.auth) return payload;
    const entry = {
      accountId: request.auth.accountId,
      keyId: request.auth.keyId,
      endpoint: `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`,
      status: reply.statusCode,
      credits: request.creditsCharged,
      durationMs: Math.round(performance.now() - request.startedAt),
      requestId: String(request.id),
    };
    await recordUsage(ctx, entry).catch((err) => request.log.error({ err }, 'usage log write failed'));
    return payload;
  });
}

/**
 * Billable work as HTTP sees it: the credit rule is app/billing.ts's `chargedWork` (reserve, keep,
 * give back — on a failure, a free answer, an answer over the cap, a client gone); this adds the
 * client's connection as the signal and what was kept to the usage row. Returns the work's value.
 */
export async function withCredit<T>(
  ctx: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  work: Work<T>,
  free?: (result: T) => boolean,
): Promise<T> {
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.sent && !reply.raw.writableFinished)
      controller.abort(new TrawlError('fetch_failed', 'the client closed the connection'));
  };
  request.raw.socket?.once('close', onClose);
  try {
    const { value, credits } = await chargedWork(ctx, request.auth!.accountId, work, controller.signal, free);
    request.creditsCharged = credits;
    return value;
  } catch (e) {
    // A failure whose work was done (the caller's steps ran) keeps its credit: the usage row says so.
    if (isTrawlError(e) && e.charged) request.creditsCharged = 1;
    throw e;
  } finally {
    request.raw.socket?.off('close', onClose);
  }
}
