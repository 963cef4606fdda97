/**
 * GET /metrics (Prometheus text format) and the HTTP request metrics. The counters of what this
 * process did live in one process-wide registry (../../metrics.ts); the gauges here describe this
 * service's state and are read when Prometheus scrapes: the document pool's queue, the work queue,
 * the store's backlog (due monitors and their lag, deliveries due, jobs by state) and, in
 * scale-out, the workers seen in Redis. Each service has a registry of its own for them (a test
 * may start several services in one process), merged with the process registry for the answer.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Gauge, Registry } from 'prom-client';
import { DocumentPool } from '../../engine/document/pool.js';
import { TrawlError } from '../../errors.js';
import { collectProcessMetrics, httpDuration, httpRequests, processRegistry } from '../../metrics.js';
import { bullQueueDepth, type QueueDepth } from '../../queue/index.js';
import { liveWorkers } from '../../queue/heartbeat.js';
import { readBacklog } from '../../store/repos/backlog.js';
import type { ServerContext } from '../context.js';
import { within, type OpsRedis } from './redis.js';

/** A scrape waits this long for the store and Redis, then answers without their gauges. */
const SCRAPE_TIMEOUT_MS = 2000;

/** Requests and their latency, by route pattern (never the raw path: ids would make a series each). */
export function countRequests(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
}

function serviceGauges(registry: Registry) {
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge({ name, help, labelNames, registers: [registry] });
  return {
    documentWorkers: gauge(
      'trawl_document_workers',
      'Worker threads of the document pipeline (0: pages are processed on the main thread)',
    ),
    documentQueue: gauge('trawl_document_queue_depth', 'Pages waiting for a document worker'),
    queueJobs: gauge(
      'trawl_queue_jobs',
      "Work in the monitor-runs and webhook-deliveries queues by state (embedded: this process's lanes; scale-out: BullMQ's counts in Redis)",
      ['queue', 'state'] as const,
    ),
    storeUp: gauge(
      'trawl_store_backlog_up',
      "1 when the store answered this scrape's backlog queries in time; 0: the store gauges below read NaN (or have no series) until it does",
    ),
    monitorsDue: gauge(
      'trawl_monitors_due',
      'Active monitors past their due time, not yet handed to a run (store-wide)',
    ),
    monitorLag: gauge(
      'trawl_monitor_lag_seconds',
      'Age of the oldest due time still waiting: a due monitor, or a run queued and not started (store-wide; 0 when nothing waits)',
    ),
    runsOpen: gauge('trawl_monitor_runs_open', 'Monitor runs queued or running (store-wide)', ['status'] as const),
    deliveriesDue: gauge(
      'trawl_webhook_deliveries_due',
      'Pending webhook deliveries whose next attempt is due (store-wide)',
    ),
    deliveriesSending: gauge('trawl_webhook_deliveries_sending', 'Webhook attempts being sent (store-wide)'),
    jobs: gauge('trawl_jobs', 'Jobs by state, as kept for TRAWL_JOB_RETENTION_HOURS (store-wide)', ['state'] as const),
    jobPagesQueued: gauge(
      'trawl_job_pages_queued',
      'URLs of queued and running jobs not yet done or failed (store-wide)',
    ),
  };
}

/** Constant-time check of `Authorization: Bearer <token>` (digests, so lengths never differ). */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(String(authorization ?? ''));
  if (!m) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(m[1]), digest(token));
}

export function metricsRoutes(app: FastifyInstance, ctx: ServerContext, redis: OpsRedis | undefined): void {
  collectProcessMetrics();
  const registry = new Registry();
  const g = serviceGauges(registry);
  const scaleOut = !!(redis && ctx.config.databaseUrl);
  // An API process of a scale-out deployment holds no queue: it reads BullMQ's counts from Redis.
  const bull = !ctx.queue && scaleOut ? bullQueueDepth(redis!.client, ctx.config.queuePrefix) : undefined;
  if (bull) app.addHook('onClose', () => bull.close());
  const workers = scaleOut
    ? new Gauge({
        name: 'trawl_workers_live',
        help: 'trawl worker processes whose heartbeat in Redis has not expired (scale-out)',
        registers: [registry],
      })
    : undefined;
  const merged = Registry.merge([processRegistry, registry]);
  const storeGauges = [
    g.monitorsDue,
    g.monitorLag,
    g.runsOpen,
    g.deliveriesDue,
    g.deliveriesSending,
    g.jobs,
    g.jobPagesQueued,
  ];

  const refreshStore = async () => {
    try {
      const b = await within(SCRAPE_TIMEOUT_MS, readBacklog(ctx.store.db, ctx.store.now()));
      g.monitorsDue.set(b.monitorsDue);
      g.monitorLag.set(b.monitorLagSeconds);
      for (const [status, n] of Object.entries(b.runsOpen)) g.runsOpen.set({ status }, n);
      g.deliveriesDue.set(b.deliveriesDue);
      g.deliveriesSending.set(b.deliveriesSending);
      for (const [state, n] of Object.entries(b.jobs)) g.jobs.set({ state }, n);
      g.jobPagesQueued.set(b.jobPagesQueued);
      g.storeUp.set(1);
    } catch {
      // No stale numbers, and no false zeros: NaN (a gap in graphs) until the store answers again.
      for (const m of storeGauges) m.reset();
      for (const m of [g.monitorsDue, g.monitorLag, g.deliveriesDue, g.deliveriesSending, g.jobPagesQueued]) m.set(NaN);
      g.storeUp.set(0);
    }
  };
  const refreshQueues = async () => {
    g.queueJobs.reset();
    const read = ctx.queue
      ? () => ctx.queue!.depth()
      : bull
        ? async () => (await redis!.ready(SCRAPE_TIMEOUT_MS), bull.read())
        : undefined;
    const depth: QueueDepth[] = read ? await within(SCRAPE_TIMEOUT_MS, read()).catch(() => []) : [];
    for (const d of depth) g.queueJobs.set({ queue: d.queue, state: d.state }, d.count);
  };
  const refreshWorkers = async () => {
    if (!workers) return;
    const n = await within(
      SCRAPE_TIMEOUT_MS,
      redis!.ready(SCRAPE_TIMEOUT_MS).then((r) => liveWorkers(r, ctx.config.queuePrefix)),
    ).catch(() => NaN);
    workers.set(n);
  };

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (ctx.config.metricsToken && !bearerMatches(request.headers.authorization, ctx.config.metricsToken))
      throw new TrawlError(
        'unauthorized',
        'authorization: /metrics wants "Authorization: Bearer <TRAWL_METRICS_TOKEN>" (the token the operator set; an API key does not open it)',
      );
    const docs = ctx.engine.documents;
    g.documentWorkers.set(docs instanceof DocumentPool ? docs.size : 0);
    g.documentQueue.set(docs instanceof DocumentPool ? docs.queued : 0);
    await Promise.all([refreshStore(), refreshQueues(), refreshWorkers()]);
    reply.header('content-type', merged.contentType).header('cache-control', 'no-store');
    // prom-client writes NaN as "Nan" (Go's ParseFloat takes it; stricter readers want "NaN").
    return (await merged.metrics()).replace(/ Nan$/gm, ' NaN');
  });
}
