/**
 * The job runner: one loop per process (embedded `trawl serve`, each `trawl worker`) that claims
 * job items from the store and scrapes them with the same engine as /v1/scrape, each under its
 * account's fetch slots. The store is the frontier and the result log: nothing of a job is held
 * in memory beyond the items in hand, a process killed mid-job costs nothing (its items' leases
 * pass and another takes them), and every item ends in exactly one page.
 */
import { compileSchema, forOwner, type Engine } from '../engine/index.js';
import { isTrawlError } from '../errors.js';
import { jobPages } from '../metrics.js';
import type { Redactor } from '../redact.js';
import { jobs as repo, storeUnreachable, type Store } from '../store/index.js';
import type { ClaimedItem, FinishedItem } from '../store/repos/jobs.js';
import { JobClearance } from './clearance-jars.js';
import { storeFrontier } from './crawl-item.js';
import { crawlScope, type CrawlJobOptions } from './page-options.js';
import { batchItem, type BatchOptions } from './batch-item.js';
import { jobEvents, type EventShape } from './events.js';
import {
  crawlPage,
  HostGate,
  RobotsCache,
  type CrawlStores,
  type Gate,
  type ItemOutcome,
} from '../engine/crawl/index.js';
import { sendJobEvents } from './webhooks.js';
import type { PageQueue } from '../queue/pages.js';

/**
 * An item whose lease passed is presumed lost (its worker died) and is claimed again; the runner
 * renews the leases of the items it holds every third of this.
 */
export const ITEM_LEASE_MS = 30_000;
const POLL_MS = 250;
/** How long a page taken from the queue waits for others to take with it in one statement. */
const TAKE_WAIT_MS = 2;
const LIVE_MS = 500;
/**
 * A page whose worker died this many times (each claim's lease passed) is not tried again: it
 * ends as a failed page, so one page that kills its worker cannot stall its job for ever.
 */
export const MAX_ITEM_ATTEMPTS = 3;

export interface JobRunnerOptions {
  store: Store;
  engine: Engine;
  /** Items worked on at once by this process. @default 16 */
  concurrency?: number;
  /** Items of one account in one claim (its fetch slots bound its pages anyway). @default 8 */
  perAccount?: number;
  /** An account's pages in hand at once across every process, its monitor runs included (TRAWL_ACCOUNT_CONCURRENCY). @default unbounded */
  accountCap?: number;
  redact: Redactor;
  /**
   * Scale-out: pages go through BullMQ — this process claims pages from the store and hands them
   * to the queue, and takes pages from it (any worker's), `concurrency` at once. Without it
   * (embedded) the process works on the pages it claims.
   */
  pages?: PageQueue;
  /** Per-host politeness: this process's own by default; every worker's together in scale-out (SharedHostGate). */
  hosts?: Gate;
  /** Event bodies of another shape for the jobs that ask for it (the Firecrawl surface's). */
  eventShape?: EventShape;
  /** How long a claim holds without renewal (tests shorten it). @default ITEM_LEASE_MS */
  leaseMs?: number;
  /** Job webhooks' retry schedule (TRAWL_WEBHOOK_RETRY_BASE_MS, TRAWL_WEBHOOK_MAX_ATTEMPTS). */
  webhooks?: { retryBaseMs: number; maxAttempts: number };
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /**
   * Where an account's screenshots go (the job's files_base), and its view of the result cache
   * when max_age asks for it (app/scrape-stores.ts's jobStores); without it a job keeps no files
   * and its max_age reads and stores nothing.
   */
  stores?: (account: string, job: { files_base?: string; max_age?: number }) => CrawlStores;
}

const claimKey = (it: ClaimedItem) => `${it.job_id}-${it.seq}-${it.attempts}`;

export type { BatchOptions } from './batch-item.js';

export class JobRunner {
  readonly #o: JobRunnerOptions;
  #running = false;
  #loop?: Promise<void>;
  #wake?: () => void;
  #woken = false;
  #inHand = 0;
  /** Items taken from the queue waiting for their takeItems statement (#take). */
  readonly #takes: { item: ClaimedItem; resolve: (taken: boolean) => void; reject: (err: unknown) => void }[] = [];
  readonly #work = new Set<Promise<void>>();
  readonly #held = new Set<ClaimedItem>();
  /** Scale-out: pages this process handed to the queue that no worker may have taken yet (by queue job id). */
  readonly #handed = new Map<string, ClaimedItem>();
  #checking = false;
  #renewal?: NodeJS.Timeout;
  #sending?: Promise<void>;
  readonly #ending: { entry: FinishedItem; resolve(v: boolean): void; reject(e: unknown): void }[] = [];
  #writing = false;
  readonly #robots = new RobotsCache();
  readonly #clearance = new JobClearance();
  readonly #hosts: Gate;
  /** Whether a job still runs, as last read (at most LIVE_MS ago): a cancelled job's pages are not fetched. */
  readonly #live = new Map<string, { running: boolean; at: number }>();

  constructor(options: JobRunnerOptions) {
    this.#o = options;
    this.#hosts = options.hosts ?? new HostGate();
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
    this.#o.pages?.consume((item) => this.#handle(item), this.#o.concurrency ?? 16);
    this.#sending = this.#send();
    this.#renewal = setInterval(() => this.#renew(), this.#leaseMs / 3);
    this.#renewal.unref();
  }

  get #leaseMs(): number {
    return this.#o.leaseMs ?? ITEM_LEASE_MS;
  }

  /**
   * Keeps the claims of this process alive: the pages it works on, and (scale-out) the pages it
   * handed to the queue that no worker has taken yet — a page may wait there longer than a lease
   * (hosts with a Crawl-delay), and a lease passing there would have it claimed again, fetched
   * twice and, after three such claims, given up. A worker that takes a page renews it from then on.
   */
  #renew(): void {
    const db = this.#o.store.db;
    const until = new Date(this.#o.store.now().getTime() + this.#leaseMs).toISOString();
    if (this.#held.size) void repo.renewItems(db, [...this.#held], until).catch(() => undefined);
    const pages = this.#o.pages;
    if (!pages || !this.#handed.size || this.#checking) return;
    this.#checking = true;
    const handed = [...this.#handed];
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error('queue slow')), this.#leaseMs / 3)),
    );
    void Promise.race([pages.notTaken(handed.map(([, it]) => it)), late])
      .then(
        (waiting) => {
          const still = new Set(waiting);
          for (const [id, it] of handed) if (!still.has(it)) this.#handed.delete(id);
          return waiting;
        },
        // Redis away (or slow): no worker can take them either, so their claims are kept.
        () => handed.map(([, it]) => it),
      )
      .then((items) => (items.length ? repo.renewItems(db, items, until) : undefined))
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        this.#checking = false;
      });
  }

  /** Look now (a job was created, an item ended). A wake during a claim makes the loop look again after it. */
  wake(): void {
    if (this.#wake) this.#wake();
    else this.#woken = true;
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearInterval(this.#renewal);
    this.wake();
    await this.#loop;
    // Scale-out: no new page is taken; the pages in hand end (BullMQ's close waits for them).
    await this.#o.pages?.close();
    await this.#sending;
    await Promise.allSettled([...this.#work]);
  }

  /** The webhook loop: due job events are sent as lanes free, fair between accounts (./webhooks.ts). */
  async #send(): Promise<void> {
    const o = this.#o;
    const w = o.webhooks ?? { retryBaseMs: 5000, maxAttempts: 8 };
    await sendJobEvents({
      store: o.store,
      engine: o.engine,
      redact: o.redact,
      ...w,
      pollMs: POLL_MS,
      running: () => this.#running,
      onError: (err) => o.log?.error({ err }, 'job webhook attempt failed; retrying'),
    });
  }

  /**
   * Claims pages from the store: embedded, as many as this process has room for; in scale-out, as
   * many as keep two rounds of this process's concurrency waiting in the queue (few enough that a
   * page never waits there past its lease, and that a job made later is not queued behind a
   * large one's whole frontier).
   */
  async #run(): Promise<void> {
    const concurrency = this.#o.concurrency ?? 16;
    const pages = this.#o.pages;
    while (this.#running) {
      let claimed = 0;
      let asked = 0;
      // (A wake from before this claim is answered by it.)
      this.#woken = false;
      try {
        // Scale-out: claims in batches of at least half a round (each claim is a locked transaction
        // that counts the account's pages in hand; a page at a time would make many more of them).
        const room = pages ? 2 * concurrency - (await pages.waiting()) : concurrency - this.#inHand;
        asked = room >= (pages ? concurrency / 2 : 1) ? room : 0;
        const items =
          asked > 0
            ? await repo.claimItems(
                this.#o.store.db,
                this.#o.store.now(),
                room,
                this.#leaseMs,
                this.#o.perAccount ?? 8,
                this.#o.accountCap,
              )
            : [];
        claimed = items.length;
        if (pages) {
          await pages.add(items);
          for (const it of items) this.#handed.set(claimKey(it), it);
        } else for (const item of items) this.#start(item);
      } catch (err) {
        this.#o.log?.error({ err }, 'job item claim failed; retrying');
      }
      if (!this.#running) break;
      // The claim filled the room asked: more may be waiting, look again at once. Otherwise nothing
      // more can be had now (none queued, or accounts at their caps): an item ending wakes the loop.
      if (claimed && claimed >= asked && (pages || this.#inHand < concurrency)) continue;
      if (this.#woken) {
        this.#woken = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, POLL_MS).unref();
      });
      this.#wake = undefined;
    }
  }

  #start(item: ClaimedItem): void {
    const p = this.#handle(item).finally(() => this.#work.delete(p));
    this.#work.add(p);
  }

  /** One page, its lease renewed while this process works on it. */
  async #handle(item: ClaimedItem): Promise<void> {
    this.#inHand++;
    this.#held.add(item);
    try {
      if (this.#o.pages) {
        this.#handed.delete(claimKey(item));
        // Taken from the queue: a claim that is no longer the item's (claimed again, cancelled) is dropped unfetched.
        if (!(await this.#take(item))) return;
      }
      if (await this.#stillRunning(item.job_id)) await this.#process(item);
    } catch (err) {
      this.#o.log?.error({ err, job: item.job_id }, 'job item failed unexpectedly');
    } finally {
      this.#inHand--;
      this.#held.delete(item);
      this.wake();
    }
  }

  /**
   * Takes an item from the queue (takeItems), with the items taken within TAKE_WAIT_MS of it in
   * one statement: a transaction a page was the most PostgreSQL did for a page.
   */
  #take(item: ClaimedItem): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#takes.push({ item, resolve, reject });
      if (this.#takes.length === 1) setTimeout(() => void this.#flushTakes(), TAKE_WAIT_MS);
    });
  }

  async #flushTakes(): Promise<void> {
    const batch = this.#takes.splice(0);
    try {
      const until = new Date(this.#o.store.now().getTime() + this.#leaseMs).toISOString();
      const taken = await repo.takeItems(
        this.#o.store.db,
        batch.map((b) => b.item),
        until,
      );
      for (const b of batch) b.resolve(taken.has(`${b.item.job_id}-${b.item.seq}`));
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }

  /** Cancel stops new fetches within LIVE_MS: each job's state is read again after that long. */
  async #stillRunning(jobId: string): Promise<boolean> {
    const seen = this.#live.get(jobId);
    if (seen && Date.now() - seen.at < LIVE_MS) return seen.running;
    const running = (await repo.jobState(this.#o.store.db, jobId)) === 'running';
    if (this.#live.size > 1000) this.#live.clear();
    this.#live.set(jobId, { running, at: Date.now() });
    return running;
  }

  /**
   * Group commit: an item that ends while a batch is being written waits for the next one, which
   * takes everything that ended meanwhile — one transaction for many pages under load, one for
   * one when idle, and no timer.
   */
  async #finish(
    item: ClaimedItem,
    page: unknown,
    failed: boolean,
    crawl: Pick<FinishedItem, 'discovered' | 'final' | 'options'> = {},
  ): Promise<boolean> {
    const written = await new Promise<boolean>((resolve, reject) => {
      this.#ending.push({ entry: { item, page, failed, ...crawl }, resolve, reject });
      if (!this.#writing) void this.#writeEnded();
    });
    this.#count(item, failed, written);
    return written;
  }

  async #writeEnded(): Promise<void> {
    this.#writing = true;
    while (this.#ending.length) {
      const batch = this.#ending.splice(0, 64);
      const at = this.#o.store.now().toISOString();
      try {
        const written = await this.#whileUnreachable(() =>
          repo.finishItems(
            this.#o.store.db,
            batch.map((b) => b.entry),
            at,
            jobEvents(at, this.#o.eventShape),
          ),
        );
        batch.forEach((b, i) => b.resolve(written[i]));
      } catch (e) {
        for (const b of batch) b.reject(e);
      }
    }
    this.#writing = false;
  }

  /**
   * A write the store could not take because it was away is tried again, under the same claims,
   * for up to two leases: pages fetched during a database blip are kept, not fetched again a
   * lease later. (A claim taken meanwhile by another runner makes the write a no-op; a write
   * that did commit before its connection dropped is not written twice: the items are no longer
   * running.)
   */
  async #whileUnreachable<T>(work: () => Promise<T>): Promise<T> {
    const end = Date.now() + 2 * this.#leaseMs;
    for (let wait = 250; ; wait = Math.min(2 * wait, 4000)) {
      try {
        return await work();
      } catch (e) {
        if (!this.#running || !storeUnreachable(e) || Date.now() + wait > end) throw e;
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  async #process(item: ClaimedItem): Promise<void> {
    if (item.attempts > MAX_ITEM_ATTEMPTS) {
      const detail = `given up after ${MAX_ITEM_ATTEMPTS} attempts: each worker that took this page stopped before finishing it`;
      await this.#finish(
        item,
        { url: item.url, ...(item.kind === 'crawl' ? { depth: item.depth } : {}), error: 'internal_error', detail },
        true,
      );
      return;
    }
    if (item.kind === 'crawl') return this.#crawl(item);
    const o = JSON.parse(item.options) as BatchOptions;
    let page: Record<string, unknown>;
    let failed = false;
    try {
      const account = item.account_id;
      const result = await batchItem(
        forOwner(this.#o.engine, account),
        item.url,
        o,
        this.#robots,
        this.#hosts,
        this.#wanted(item),
        this.#stores(account, o),
        this.#clearance.for(item.job_id),
      );
      if (!result) return;
      page = result;
    } catch (e) {
      failed = true;
      page = {
        url: item.url,
        error: isTrawlError(e) ? e.code : 'internal_error',
        ...(isTrawlError(e) && e.detail ? { detail: this.#o.redact(e.detail) } : {}),
      };
    }
    await this.#finish(item, page, failed);
  }

  /**
   * Asked again once a page's host's turn comes (a Crawl-delay may hold it for long): a cancel
   * meanwhile means no fetch. (The store away: fetch — the write checks the job's state anyway.)
   */
  #wanted(item: ClaimedItem): () => Promise<boolean> {
    return () => this.#stillRunning(item.job_id).catch(() => true);
  }

  /** Where an account's screenshots go and its view of the cache, as the runner's maker gave them. */
  #stores(account: string, o: { files_base?: string; max_age?: number }): CrawlStores {
    return this.#o.stores?.(account, o) ?? { files: undefined, cache: undefined };
  }

  /** A page counts once it is written (a claim that lost its item to another runner wrote nothing). */
  #count(item: ClaimedItem, failed: boolean, written: boolean): void {
    if (written) jobPages.inc({ kind: item.kind, outcome: failed ? 'failed' : 'done' });
  }

  async #crawl(item: ClaimedItem): Promise<void> {
    const o = JSON.parse(item.options) as CrawlJobOptions;
    let outcome: ItemOutcome;
    try {
      const result = await crawlPage({
        fetchers: forOwner(this.#o.engine, item.account_id),
        item,
        crawl: crawlScope(o, this.#stores(item.account_id, o)),
        schema: o.schema ? compileSchema(o.schema) : undefined,
        robots: this.#robots,
        hosts: this.#hosts,
        wanted: this.#wanted(item),
        frontier: storeFrontier(this.#o.store, item.job_id),
        clearance: this.#clearance.for(item.job_id),
      });
      if (!result) return;
      outcome = result;
    } catch (e) {
      outcome = {
        page: {
          url: item.url,
          depth: item.depth,
          error: isTrawlError(e) ? e.code : 'internal_error',
          ...(isTrawlError(e) && e.detail ? { detail: this.#o.redact(e.detail) } : {}),
        },
        failed: true,
        discovered: [],
      };
    }
    await this.#finish(item, outcome.page, outcome.failed, {
      discovered: outcome.discovered,
      final: outcome.final,
      // Its start page moved the crawl to another site: its later pages keep to that one.
      ...(outcome.site ? { options: { ...o, site: outcome.site } } : {}),
    });
  }
}
