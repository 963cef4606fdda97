/** What the server shares with its routes and plugins, and the request decorations' types. */
import type { Config } from '../config.js';
import type { Engine } from '../engine/index.js';
import type { JobRunner } from '../jobs/runner.js';
import type { MonitorScheduler } from '../monitors/scheduler.js';
import type { WorkQueue } from '../queue/index.js';
import type { Redactor } from '../redact.js';
import type { Store, StoreResultCache } from '../store/index.js';
import type { RateLimiter } from './token-bucket.js';

export interface ServerContext {
  config: Config;
  store: Store;
  engine: Engine;
  rateLimiter: RateLimiter;
  /** The in-process scheduler (embedded deployments); absent on stateless API processes. */
  scheduler?: MonitorScheduler;
  /** This process's job runner (embedded deployments), woken when a job is created. */
  jobs?: JobRunner;
  /** The queue the in-process scheduler hands work to (embedded deployments), for /metrics. */
  queue?: WorkQueue;
  /** Removes configured secrets from text leaving the process (redact.ts). */
  redact: Redactor;
  /** The scrape result cache (`max_age`) of this process; made on first use when absent. */
  resultCache?: StoreResultCache;
}

export interface AuthInfo {
  accountId: string;
  keyId: string;
  rateLimitPerMinute: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthInfo;
    /** Credits kept for this request (0 until work succeeds). */
    creditsCharged: number;
    /** performance.now() when the request arrived (its usage row's duration). */
    startedAt: number;
  }
}
