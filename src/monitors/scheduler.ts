/**
 * The scheduler: one loop over due times stored in the database (no timer per monitor). Each
 * pass turns due monitors into queued runs, hands due delivery attempts to the queue, and now
 * and then takes back work whose process died (leases). It sleeps until the next due time,
 * at most POLL_MS, or until woken. Any number of schedulers may share a database.
 */
import type { Engine } from '../engine/index.js';
import type { MetaAdsConfig } from '../engine/meta-ads/index.js';
import type { WorkQueue } from '../queue/index.js';
import { monitors as monitorRepo, webhooks as webhookRepo, type Store } from '../store/index.js';
import { attemptDelivery, recoverInterrupted, type DeliveryDeps } from './deliver.js';
import { executeRun } from './runner.js';
import type { Redactor } from '../redact.js';

const POLL_MS = 250;
/** At most one pass per this: with thousands of monitors something is always due in a few ms. */
const MIN_PASS_MS = 100;
const SWEEP_EVERY_MS = 5_000;
const BATCH = 500;
/** A queued run not started within this is handed out again (its queue lost it). */
const QUEUE_LEASE_MS = 5 * 60_000;
/** A delivery attempt handed to the queue is not handed again by this process for this long (the queue has it). */
const HANDED_MS = 60_000;

export interface SchedulerOptions {
  store: Store;
  engine: Engine;
  queue: WorkQueue;
  retryBaseMs: number;
  maxAttempts: number;
  /** A webhook failing this long without a 2xx is disabled (TRAWL_WEBHOOK_DISABLE_AFTER_HOURS). */
  disableAfterMs?: number;
  /** The only process on this store (embedded): work left in hand at start is orphaned. */
  soleProcess: boolean;
  /** Open runs one account may have at once (TRAWL_ACCOUNT_CONCURRENCY). @default unbounded */
  accountCap?: number;
  /** The Ad Library's location (monitors on an advertiser). */
  meta?: MetaAdsConfig;
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Removes configured secrets from the errors runs and deliveries store. */
  redact: Redactor;
}

export class MonitorScheduler {
  readonly #o: SchedulerOptions;
  readonly #delivery: DeliveryDeps;
  #running = false;
  #loop?: Promise<void>;
  #wake?: () => void;
  #timer?: NodeJS.Timeout;
  #lastSweep = 0;
  /** Delivery attempts this process handed out recently (id.attempts → when): each pass would otherwise re-add every pending one. */
  readonly #handed = new Map<string, number>();
  #firstSweep = true;

  constructor(options: SchedulerOptions) {
    this.#o = options;
    this.#delivery = { store: options.store, engine: options.engine, retryBaseMs: options.retryBaseMs, maxAttempts: options.maxAttempts, disableAfterMs: options.disableAfterMs, redact: options.redact };
  }

  /** The handlers a queue consumer runs (the embedded service, `trawl worker`). */
  get handlers() {
    return {
      run: async (runId: string) => {
        try {
          await executeRun({ store: this.#o.store, engine: this.#o.engine, log: this.#o.log, meta: this.#o.meta, redact: this.#o.redact, onDelivery: (id, n) => void this.#handDelivery(id, n).catch(() => this.wake()) }, runId);
        } finally {
          // A slot of the run's account is free: its next due monitor can be claimed now.
          if (this.#o.accountCap !== undefined) this.wake();
        }
      },
      delivery: async (deliveryId: string, attempts: number) => {
        await attemptDelivery(this.#delivery, deliveryId, attempts);
      },
    };
  }

  get deliveryDeps(): DeliveryDeps {
    return this.#delivery;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Look again now (a monitor was created or resumed, a delivery written). */
  wake(): void {
    this.#wake?.();
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let sleepMs = POLL_MS;
      try {
        await this.tick();
        const next = await webhookRepo.nextDueAt(this.#o.store.db);
        if (next) sleepMs = Math.max(MIN_PASS_MS, Math.min(POLL_MS, Date.parse(next) - Date.now()));
      } catch (err) {
        if (!this.#running) break;
        this.#o.log?.error({ err }, 'monitor scheduler pass failed; retrying');
        sleepMs = 1000;
      }
      if (!this.#running) break;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        this.#timer = setTimeout(resolve, sleepMs);
      });
      clearTimeout(this.#timer);
      this.#wake = undefined;
    }
  }

  /** One pass (exported for tests and the bench). */
  async tick(): Promise<void> {
    const { store, queue } = this.#o;
    const now = new Date();
    // The sweep goes first: at start-up it takes back all work of a previous process, and must
    // not take back runs this pass is about to hand out (they would be run twice, or stranded
    // as queued while they run — and count against their account's cap forever).
    if (Date.now() - this.#lastSweep >= SWEEP_EVERY_MS) {
      this.#lastSweep = Date.now();
      const all = this.#firstSweep && this.#o.soleProcess;
      this.#firstSweep = false;
      const stale = await monitorRepo.takeStaleRuns(store.db, now, BATCH, QUEUE_LEASE_MS, all);
      await Promise.all(stale.map((id) => queue.addRun(id)));
      const sending = await webhookRepo.staleSending(store.db, now, all);
      if (sending.length) {
        this.#o.log?.warn({ deliveries: sending.length }, 'resuming webhook deliveries interrupted mid-attempt');
        await recoverInterrupted(this.#delivery, sending);
      }
    }
    for (;;) {
      const runs = await monitorRepo.claimDueMonitors(store.db, now, BATCH, QUEUE_LEASE_MS, this.#o.accountCap);
      await Promise.all(runs.map((id) => queue.addRun(id)));
      if (runs.length < BATCH) break;
    }
    const due = await webhookRepo.dueDeliveries(store.db, now, BATCH);
    await Promise.all(due.map((d) => this.#handDelivery(d.id, d.attempts)));
  }

  async #handDelivery(id: string, attempts: number): Promise<void> {
    const key = `${id}.${attempts}`;
    const now = Date.now();
    if ((this.#handed.get(key) ?? 0) > now - HANDED_MS) return;
    if (this.#handed.size > 100_000) for (const [k, t] of this.#handed) if (t <= now - HANDED_MS) this.#handed.delete(k);
    this.#handed.set(key, now);
    await this.#o.queue.addDelivery(id, attempts);
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.wake();
    await this.#loop;
  }
}
