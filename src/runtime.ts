/** Wires config → store → engine → server (and the monitor scheduler), and shuts them down in reverse order. */
import { sessionUse } from './app/browser-sessions.js';
import type { FastifyInstance } from 'fastify';
import { deliveryConfig, metaConfig, type Config } from './config.js';
import { createEngine, type Engine } from './engine/index.js';
import { MonitorScheduler } from './monitors/scheduler.js';
import { JobRunner } from './jobs/runner.js';
import { firecrawlEvents } from './app/firecrawl-events.js';
import { notifyDeps } from './app/channels.js';
import { Redis } from 'ioredis';
import { SharedHostGate } from './jobs/shared-host-gate.js';
import { PageQueue } from './queue/pages.js';
import { FileSweeper, Pruner } from './monitors/retention.js';
import { configSecrets, createRedactor, type Redactor } from './redact.js';
import { BullQueue, EmbeddedQueue, type WorkQueue } from './queue/index.js';
import { WorkerHeartbeat } from './queue/heartbeat.js';
import { serveWorkerMetrics } from './server/ops/worker-metrics.js';
import { buildServer } from './server/app.js';
import type { ServerContext } from './server/context.js';
import { RedisTokenBuckets } from './server/redis-token-bucket.js';
import { MemoryTokenBuckets, type RateLimiter } from './server/token-bucket.js';
import { openStore, type Store } from './store/index.js';
import { jobStores, StoreResultCache } from './app/scrape-stores.js';
import { lockSqliteFile, type DataDirLock } from './store/lock.js';
import { join } from 'node:path';
import { startMemoryTrimmer } from './memory-trim.js';

export interface Service {
  app: FastifyInstance;
  store: Store;
  engine: Engine;
  /** The in-process scheduler of an embedded deployment (absent when workers do the work). */
  scheduler?: MonitorScheduler;
  /** Base URL the server listens on. */
  url: string;
  close(): Promise<void>;
}

type Log = { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };

/** Scale-out: PostgreSQL and Redis both configured; monitor work then belongs to `trawl worker`s. */
export const isScaleOut = (config: Config) => !!(config.databaseUrl && config.redisUrl);

export interface WorkerOptions {
  /** BullMQ key prefix (tests use their own). */
  queuePrefix?: string;
  runConcurrency?: number;
  deliveryConcurrency?: number;
}

/** The job runner of this process: it claims job items from the store like any other process. */
function startJobs(
  config: Config,
  store: Store,
  engine: Engine,
  log: Log,
  redact: Redactor,
  scaleOut?: { pages: PageQueue; hosts: SharedHostGate },
): JobRunner {
  const { retryBaseMs, maxAttempts } = deliveryConfig(config);
  const runner = new JobRunner({
    store,
    engine,
    log,
    redact,
    ...scaleOut,
    eventShape: firecrawlEvents,
    accountCap: config.accountConcurrency,
    webhooks: { retryBaseMs, maxAttempts },
    stores: jobStores(store, {
      resultCache: new StoreResultCache(store, config.cacheMaxBytes),
      fileRetentionHours: config.fileRetentionHours,
      filesMaxBytesPerAccount: config.filesMaxBytesPerAccount,
    }),
  });
  runner.start();
  return runner;
}

function startScheduler(
  config: Config,
  store: Store,
  engine: Engine,
  queue: WorkQueue,
  log: Log,
  redact: Redactor,
  soleProcess: boolean,
  address: () => string = () => '',
): MonitorScheduler {
  const scheduler = new MonitorScheduler({
    store,
    engine,
    queue,
    ...deliveryConfig(config),
    soleProcess,
    accountCap: config.accountConcurrency,
    meta: metaConfig(config),
    log,
    redact,
    notify: notifyDeps(config, address),
    sessions: sessionUse({ config, store, engine }),
  });
  queue.consume(scheduler.handlers);
  scheduler.start();
  return scheduler;
}

/** Retention runs where the scheduler runs: one pruner a process, harmless when several share a database. */
function startPruner(config: Config, store: Store, log: Log): Pruner {
  const pruner = new Pruner({
    store,
    retentionDays: config.runRetentionDays,
    jobRetentionHours: config.jobRetentionHours,
    cacheMaxBytes: config.cacheMaxBytes,
    filesMaxBytesPerAccount: config.filesMaxBytesPerAccount,
    log,
  });
  pruner.start();
  return pruner;
}

export async function startService(
  config: Config,
  options: { logger?: boolean | object; listen?: boolean; scheduler?: boolean } = {},
): Promise<Service> {
  let app: FastifyInstance | undefined;
  // One redactor for this process: the server's bodies and log lines, and stored run errors.
  const redact = createRedactor(configSecrets(config));
  const log: Log = { warn: (o, m) => app?.log.warn(o, m), error: (o, m) => app?.log.error(o, m) };
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    filesDir: config.filesDir,
    poolSize: config.dbPoolSize,
    onError: (err) => app?.log.warn({ err: err.message }, 'database connection dropped; it will be reopened'),
  });
  const engine = createEngine(config, log);
  const rateLimiter: RateLimiter = config.redisUrl ? new RedisTokenBuckets(config.redisUrl) : new MemoryTokenBuckets();
  let queue: WorkQueue | undefined;
  let scheduler: MonitorScheduler | undefined;
  // The address this process serves at, once it listens (notifications link to its dashboard).
  let url = '';
  let lock: DataDirLock | undefined;
  let pruner: Pruner | undefined;
  let sweeper: FileSweeper | undefined;
  let jobs: JobRunner | undefined;
  if (options.scheduler ?? !isScaleOut(config)) {
    // On SQLite this process is the file's only scheduler (enforced by the lock), so work left in
    // hand at start is orphaned; on PostgreSQL others may share the store: leases decide.
    if (store.dialect === 'sqlite') {
      try {
        lock = lockSqliteFile(join(config.dataDir, 'trawl.db'));
      } catch (e) {
        await Promise.all([engine.close(), store.close(), rateLimiter.close?.()]);
        throw e;
      }
    }
    queue = new EmbeddedQueue({ onError: (err) => log.error({ err }, 'monitor work failed') });
    scheduler = startScheduler(config, store, engine, queue, log, redact, lock !== undefined, () => url);
    pruner = startPruner(config, store, log);
    jobs = startJobs(config, store, engine, log, redact);
  } else {
    sweeper = new FileSweeper(store, undefined, log);
    sweeper.start();
  }
  const ctx: ServerContext = {
    config,
    store,
    engine,
    rateLimiter,
    scheduler,
    jobs,
    queue,
    redact,
    resultCache: new StoreResultCache(store, config.cacheMaxBytes),
  };
  const trimmer = startMemoryTrimmer({
    onTrim: (r) =>
      app?.log.debug(
        {
          rssMb: Math.round(r.after / 2 ** 20),
          freedMb: Math.round((r.before - r.after) / 2 ** 20),
          ms: Math.round(r.ms),
        },
        'native memory trimmed',
      ),
  });
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      trimmer.stop();
      await app?.close();
      await scheduler?.stop();
      await jobs?.stop();
      await pruner?.stop();
      await sweeper?.stop();
      await queue?.close();
      await rateLimiter.close?.();
      await engine.close();
      await store.close();
      lock?.release();
    })());
  try {
    app = await buildServer(ctx, { logger: options.logger });
    if (options.listen !== false) {
      await app.listen({ port: config.port, host: config.host });
      const addr = app.server.address();
      url =
        typeof addr === 'object' && addr
          ? `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`
          : '';
    } else {
      await app.ready();
    }
  } catch (e) {
    // (Port in use …): nothing of this process may keep running headless — no scheduler
    // running monitors without an API, no SQLite lock held by a process that failed to start.
    await close().catch(() => undefined);
    throw e;
  }
  return { app, store, engine, scheduler, url, close };
}

/** A worker's handlers (32 runs, 64 deliveries at once) write in short bursts: 24 connections keep them from queueing on the pool. */
const WORKER_POOL = 24;

export interface WorkerProcess {
  store: Store;
  engine: Engine;
  scheduler: MonitorScheduler;
  /** Where its /metrics is served (TRAWL_WORKER_METRICS_PORT), if anywhere. */
  metricsUrl?: string;
  close(): Promise<void>;
}

/**
 * `trawl worker`: schedules due monitors and consumes the BullMQ queues (monitor runs, webhook
 * deliveries) with the same engine functions as the API. Any number may run side by side.
 */
export async function startWorker(config: Config, log: Log, options: WorkerOptions = {}): Promise<WorkerProcess> {
  if (!isScaleOut(config))
    throw new Error(
      'trawl worker needs DATABASE_URL (PostgreSQL) and REDIS_URL; without them `trawl serve` runs monitors in process',
    );
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    filesDir: config.filesDir,
    poolSize: config.dbPoolSize ?? WORKER_POOL,
    onError: (err) => log.warn({ err: err.message }, 'database connection dropped; it will be reopened'),
  });
  const engine = createEngine(config, log);
  const queue = new BullQueue({
    redisUrl: config.redisUrl!,
    prefix: options.queuePrefix ?? config.queuePrefix,
    runConcurrency: options.runConcurrency,
    deliveryConcurrency: options.deliveryConcurrency,
    onError: (err) => log.error({ err }, 'queue error'),
  });
  let metrics: Awaited<ReturnType<typeof serveWorkerMetrics>> | undefined;
  try {
    if (config.workerMetricsPort !== undefined)
      metrics = await serveWorkerMetrics({
        host: config.host,
        port: config.workerMetricsPort,
        token: config.metricsToken,
        queue,
      });
  } catch (e) {
    // (Port in use …): nothing of this worker keeps running.
    await Promise.all([queue.close(), engine.close(), store.close()]);
    throw e;
  }
  // The caller's logger redacts its own lines (cli: `trawl worker`); this one guards stored errors.
  const scheduler = startScheduler(config, store, engine, queue, log, createRedactor(configSecrets(config)), false);
  const pruner = startPruner(config, store, log);
  // Pages of jobs as BullMQ jobs any worker takes (the runner closes this queue when it stops).
  const prefix = options.queuePrefix ?? config.queuePrefix;
  const pages = new PageQueue({
    redisUrl: config.redisUrl!,
    prefix,
    onError: (err) => log.error({ err }, 'page queue error'),
  });
  // Fails fast while Redis is away: the gate then falls back to this process's own.
  const gateRedis = new Redis(config.redisUrl!, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  gateRedis.on('error', () => undefined);
  const jobs = startJobs(config, store, engine, log, createRedactor(configSecrets(config)), {
    pages,
    hosts: new SharedHostGate(gateRedis, prefix ?? 'trawl'),
  });
  // Seen by the API processes' /readyz: someone is there to do the work.
  const heartbeat = new WorkerHeartbeat(config.redisUrl!, prefix);
  await heartbeat.start();
  const trimmer = startMemoryTrimmer();
  let closing: Promise<void> | undefined;
  return {
    store,
    engine,
    scheduler,
    metricsUrl: metrics?.url,
    close: () =>
      (closing ??= (async () => {
        trimmer.stop();
        await metrics?.close();
        await heartbeat.stop();
        await scheduler.stop();
        await jobs.stop();
        gateRedis.disconnect();
        await pruner.stop();
        await queue.close();
        await engine.close();
        await store.close();
      })()),
  };
}
