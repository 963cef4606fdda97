/**
 * The scheduler: one loop over due times stored in the database (no timer per monitor). Each
 * pass turns due monitors into queued runs, hands due delivery attempts to the queue, and now
 * and then takes back work whose process died (leases). It sleeps until the next due time,
 * at most POLL_MS, or until woken. Any number of schedulers may share a database.
 */
import type { Engine } from '../engine/index.js';
import type { MetaAdsConfig } from '../engine/meta-ads/index.js';
import type { WorkQueue } from '../queue/index.js';
import type { SessionUse } from './runner.js';
import { monitors as monitorRepo, webhooks as webhookRepo, type Store } from '../store/index.js';
import { HANDED_MS, attemptDelivery, recoverInterrupted, type DeliveryDeps, type NotifyDeps } from './deliver.js';
import { executeRun } from './runner.js';
import type { Redactor } from '../redact.js';

const POLL_MS = 250;
/** At most one pass per this: with thousands of monitors something is always due in a few ms. */
const MIN_PASS_MS = 100;
const SWEEP_EVERY_MS = 5_000;
const BATCH = 500;
/**
 * A queued run not started within this is handed out again (its queue lost it: Redis restarted
 * empty, a job failed its retries while the database was away). Admission keeps the queue short,
 * so a run legitimately waiting longer is rare, and a duplicate hand-out is harmless (the runner's
 * claim in the store decides).
 */
const QUEUE_LEASE_MS = 60_000;

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
  /** Open runs (and deliveries in flight) one account may have at once (TRAWL_ACCOUNT_CONCURRENCY). @default unbounded */
  accountCap?: number;
  /** The Ad Library's location (monitors on an advertiser). */
  meta?: MetaAdsConfig;
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Removes configured secrets from the errors runs and deliveries store. */
  redact: Redactor;
  /** What notification channels' messages need (sealer, SMTP, Telegram, the dashboard's address). */
  notify?: NotifyDeps;
  /** Reads pages with saved browser sessions (issue 44); monitors with a session fail without it. */
  sessions?: SessionUse;
}

export class MonitorScheduler {
  readonly #o: SchedulerOptions;
  readonly #delivery: DeliveryDeps;
  #running = false;
  #loop?: Promise<void>;
  #wake?: () => void;
  #timer?: NodeJS.Timeout;
  #lastSweep = 0;
  #firstSweep = true;

  constructor(options: SchedulerOptions) {
    this.#o = options;
    this.#delivery = {
      store: options.store,
      engine: options.engine,
      retryBaseMs: options.retryBaseMs,
      maxAttempts: options.maxAttempts,
      disableAfterMs: options.disableAfterMs,
      redact: options.redact,
      accountCap: options.accountCap,
      notify: options.notify,
    };
  }

  /** The handlers a queue consumer runs (the embedded service, `trawl worker`). */
  get handlers() {
    return {
      run: async (runId: string) => {
        try {
          const r = await executeRun(
            {
              store: this.#o.store,
              engine: this.#o.engine,
              log: this.#o.log,
              meta: this.#o.meta,
              redact: this.#o.redact,
              sessions: this.#o.sessions,
              onDelivery: (id, n) => this.handDelivery(id, n),
            },
            runId,
          );
          // Another runner holds it: look again when its lease ends (it may have died), rather than
          // dropping the job and waiting for the sweep.
          if ('heldUntil' in r && r.heldUntil) return { retryAt: Date.parse(r.heldUntil) + 1000 };
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

  /** Hand a delivery a run just wrote to this process's queue (the relay takes it only if this is lost). */
  handDelivery(deliveryId: string, attempts: number): void {
    void this.#o.queue.addDeliveries([{ id: deliveryId, attempts }]).catch(() => this.wake());
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
      const passStarted = Date.now();
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
      // Woken often (every finished run wakes it): passes still come at most every MIN_PASS_MS.
      const early = MIN_PASS_MS - (Date.now() - passStarted);
      if (early > 0 && this.#running) await new Promise((r) => setTimeout(r, early));
    }
  }

  /** One pass (exported for tests and the bench). */
  async tick(): Promise<void> {
    const { store, queue } = this.#o;
    // Leases and due times are judged on the database's clock, whichever process looks.
    const now = store.now();
    // The sweep goes first: at start-up it takes back all work of a previous process, and must
    // not take back runs this pass is about to hand out (they would be run twice, or stranded
    // as queued while they run — and count against their account's cap forever).
    if (Date.now() - this.#lastSweep >= SWEEP_EVERY_MS) {
      this.#lastSweep = Date.now();
      const all = this.#firstSweep && this.#o.soleProcess;
      this.#firstSweep = false;
      const stale = await monitorRepo.takeStaleRuns(store.db, now, BATCH, QUEUE_LEASE_MS, all);
      await this.#handOut(
        stale,
        (ids) => queue.addRuns(ids),
        (ids) => monitorRepo.releaseQueuedRuns(store.db, ids),
      );
      const sending = await webhookRepo.staleSending(store.db, now, all);
      if (sending.length) {
        this.#o.log?.warn({ deliveries: sending.length }, 'resuming webhook deliveries interrupted mid-attempt');
        await recoverInterrupted(this.#delivery, sending);
      }
    }
    // Admission: no more runs than the workers can take soon. The rest stay due in the store (their
    // lag shows there), instead of piling up in the queue where pausing or deleting cannot reach them.
    let room = await queue.runCapacity();
    while (room > 0) {
      const asked = Math.min(BATCH, room);
      const runs = await monitorRepo.claimDueMonitors(store.db, now, asked, QUEUE_LEASE_MS, this.#o.accountCap);
      await this.#handOut(
        runs,
        (ids) => queue.addRuns(ids),
        (ids) => monitorRepo.releaseQueuedRuns(store.db, ids),
      );
      room -= runs.length;
      if (runs.length < asked) break;
    }
    const due = await webhookRepo.handDueDeliveries(store.db, now, BATCH, HANDED_MS, this.#o.accountCap);
    await this.#handOut(
      due,
      (ds) => queue.addDeliveries(ds),
      (ds) =>
        webhookRepo.releaseHanded(
          store.db,
          ds.map((d) => d.id),
        ),
    );
  }

  /**
   * Add claimed work to the queue; what the queue refused (Redis away) is released in the store at
   * once, so the next pass hands it out again instead of it waiting out its lease.
   */
  async #handOut<T>(
    items: T[],
    add: (items: T[]) => Promise<void>,
    release: (items: T[]) => Promise<unknown>,
  ): Promise<void> {
    if (!items.length) return;
    try {
      await add(items);
    } catch (e) {
      await release(items).catch(() => undefined);
      throw e;
    }
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.wake();
    await this.#loop;
  }
}
