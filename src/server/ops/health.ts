/**
 * Liveness and readiness (issue 29). /healthz: the process answers. /readyz: it can do its work —
 * the store answers a trivial query, Redis answers PING when REDIS_URL is set, and in scale-out,
 * where `trawl worker`s run monitors, deliveries and jobs, at least one worker has sent a heartbeat
 * recently (queue/heartbeat.ts). Each check is bounded in time; a failure names the check and
 * what was seen (a timeout, an error code), never an address, a URL or a credential.
 */
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { HEARTBEAT_TTL_MS, liveWorkers } from '../../queue/heartbeat.js';
import type { ServerContext } from '../context.js';
import { healthDoc, readyDoc } from '../openapi-responses.js';
import { within, type OpsRedis } from './redis.js';

/** A check gets this long before it counts as failed. */
export const CHECK_TIMEOUT_MS = 2000;

export interface Check {
  status: 'ok' | 'fail';
  latency_ms?: number;
  error?: string;
  [detail: string]: unknown;
}

export interface Readiness {
  status: 'ok' | 'fail';
  checks: Record<string, Check>;
}

/** What went wrong, in words safe to show anyone: a timeout, or the error's code alone. */
export function failureOf(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  if (code === 'ETIMEDOUT') return `no answer within ${CHECK_TIMEOUT_MS} ms`;
  return typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code) ? `unreachable (${code})` : 'unreachable';
}

async function timed(work: () => Promise<Record<string, unknown> | void>): Promise<Check> {
  const started = performance.now();
  try {
    const extra = await within(CHECK_TIMEOUT_MS, work());
    return { status: 'ok', latency_ms: Math.round(performance.now() - started), ...extra };
  } catch (err) {
    return { status: 'fail', error: failureOf(err) };
  }
}

export async function readiness(ctx: ServerContext, redis: OpsRedis | undefined): Promise<Readiness> {
  const checks: Record<string, Check> = {};
  const store = timed(async () => {
    await sql`select 1`.execute(ctx.store.db);
    return { dialect: ctx.store.dialect };
  });
  const ping = redis ? timed(async () => void (await (await redis.ready(CHECK_TIMEOUT_MS)).ping())) : undefined;
  checks.store = await store;
  if (ping) checks.redis = await ping;
  // Scale-out (PostgreSQL and Redis): the work is the workers'. A process running the scheduler
  // itself needs none, nor does an embedded deployment.
  if (redis && ctx.config.databaseUrl && !ctx.scheduler) {
    if (checks.redis?.status !== 'ok')
      checks.workers = { status: 'fail', error: 'cannot be seen while Redis is unreachable' };
    else {
      const live = await within(CHECK_TIMEOUT_MS, liveWorkers(redis.client, ctx.config.queuePrefix)).catch(
        () => undefined,
      );
      checks.workers =
        live === undefined
          ? { status: 'fail', error: 'the heartbeats could not be read' }
          : live > 0
            ? { status: 'ok', live }
            : {
                status: 'fail',
                live: 0,
                error: `no trawl worker has sent a heartbeat in the last ${HEARTBEAT_TTL_MS / 1000} s: monitors, webhooks and jobs wait until one runs (start one with: trawl worker)`,
              };
    }
  }
  return { status: Object.values(checks).every((c) => c.status === 'ok') ? 'ok' : 'fail', checks };
}

export function healthRoutes(app: FastifyInstance, ctx: ServerContext, redis: OpsRedis | undefined): void {
  app.get('/healthz', healthDoc, async () => ({ status: 'ok' }));
  app.get('/readyz', readyDoc, async (_request, reply) => {
    const r = await readiness(ctx, redis);
    reply.header('cache-control', 'no-store').code(r.status === 'ok' ? 200 : 503);
    return r;
  });
}
