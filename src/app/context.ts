/**
 * What the use cases work with: the configuration, the store, the engine and this process's
 * runners. Every surface hands its own (the server's ServerContext adds its rate limiter).
 */
import type { Config } from '../config.js';
import type { Engine } from '../engine/index.js';
import type { JobRunner } from '../jobs/runner.js';
import type { MonitorScheduler } from '../monitors/scheduler.js';
import type { WorkQueue } from '../queue/index.js';
import type { Redactor } from '../redact.js';
import type { Store } from '../store/index.js';
import type { StoreResultCache } from './scrape-stores.js';

export interface AppContext {
  config: Config;
  store: Store;
  engine: Engine;
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
