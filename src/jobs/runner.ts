/**
 * The job runner: one loop per process (embedded `trawl serve`, each `trawl worker`) that claims
 * job items from the store and scrapes them with the same engine as /v1/scrape, each under its
 * account's fetch slots. The store is the frontier and the result log: nothing of a job is held
 * in memory beyond the items in hand, a process killed mid-job costs nothing (its items' leases
 * pass and another takes them), and every item ends in exactly one page.
 */
import { compileSchema, forOwner, scrape, type Engine } from '../engine/index.js';
import { isTrawlError } from '../errors.js';
import { jobPages } from '../metrics.js';
import type { Redactor } from '../redact.js';
import { jobs as repo, type Store } from '../store/index.js';
import type { ClaimedItem } from '../store/repos/jobs.js';
import { crawlItem, RobotsCache, type CrawlJobOptions, type ItemOutcome } from './crawl-item.js';
import { HostGate } from './host-gate.js';

/**
 * An item whose lease passed is presumed lost (its worker died) and is claimed again; the runner
 * renews the leases of the items it holds every third of this.
 */
export const ITEM_LEASE_MS = 30_000;
const POLL_MS = 250;

export interface JobRunnerOptions {
  store: Store;
  engine: Engine;
  /** Items worked on at once by this process. @default 16 */
  concurrency?: number;
  /** Items of one account in hand at once here (its fetch slots bound its pages anyway). @default 8 */
  perAccount?: number;
  redact: Redactor;
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** What a batch item is scraped with (the request's scrape options, as stored on the job). */
export interface BatchOptions {
  formats?: ('markdown' | 'html' | 'raw_html' | 'links' | 'json')[];
  schema?: Record<string, unknown>;
  only_main_content?: boolean;
  render?: 'auto' | 'http' | 'browser';
  timeout_ms?: number;
}

export class JobRunner {
  readonly #o: JobRunnerOptions;
  #running = false;
  #loop?: Promise<void>;
  #wake?: () => void;
  #inHand = 0;
  readonly #work = new Set<Promise<void>>();
  readonly #held = new Set<ClaimedItem>();
  #renewal?: NodeJS.Timeout;
  readonly #robots = new RobotsCache();
  readonly #hosts = new HostGate();

  constructor(options: JobRunnerOptions) {
    this.#o = options;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
    this.#renewal = setInterval(() => {
      if (!this.#held.size) return;
      void repo.renewItems(this.#o.store.db, [...this.#held], new Date(this.#o.store.now().getTime() + ITEM_LEASE_MS).toISOString()).catch(() => undefined);
    }, ITEM_LEASE_MS / 3);
    this.#renewal.unref();
  }

  /** Look now (a job was created). */
  wake(): void {
    this.#wake?.();
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearInterval(this.#renewal);
    this.wake();
    await this.#loop;
    await Promise.allSettled([...this.#work]);
  }

  async #run(): Promise<void> {
    const concurrency = this.#o.concurrency ?? 16;
    while (this.#running) {
      let claimed = 0;
      try {
        const room = concurrency - this.#inHand;
        const items = room > 0 ? await repo.claimItems(this.#o.store.db, this.#o.store.now(), room, ITEM_LEASE_MS, this.#o.perAccount ?? 8) : [];
        claimed = items.length;
        for (const item of items) this.#start(item);
      } catch (err) {
        this.#o.log?.error({ err }, 'job item claim failed; retrying');
      }
      if (!this.#running) break;
      // Busy: look again as soon as an item ends; idle: poll.
      if (claimed && this.#inHand < concurrency) continue;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, POLL_MS).unref();
      });
      this.#wake = undefined;
    }
  }

  #start(item: ClaimedItem): void {
    this.#inHand++;
    this.#held.add(item);
    const p = this.#process(item)
      .catch((err) => this.#o.log?.error({ err, job: item.job_id }, 'job item failed unexpectedly'))
      .finally(() => {
        this.#inHand--;
        this.#held.delete(item);
        this.#work.delete(p);
        this.wake();
      });
    this.#work.add(p);
  }

  async #process(item: ClaimedItem): Promise<void> {
    if (item.kind === 'crawl') return this.#crawl(item);
    const o = JSON.parse(item.options) as BatchOptions;
    let page: Record<string, unknown>;
    let failed = false;
    try {
      const schema = o.schema ? compileSchema(o.schema) : undefined;
      const r = await scrape(forOwner(this.#o.engine, item.account_id), {
        url: item.url,
        formats: o.formats ?? (schema ? ['markdown', 'json'] : ['markdown']),
        schema,
        onlyMainContent: o.only_main_content,
        render: o.render,
        timeoutMs: o.timeout_ms,
        llm: this.#o.engine.llm,
      });
      const { url, metadata, sources: _sources, warnings, ...content } = r;
      page = { url: item.url, final_url: url, status_code: metadata.status_code, title: metadata.title ?? null, ...content, metadata, ...(warnings ? { warnings } : {}) };
    } catch (e) {
      failed = true;
      page = { url: item.url, error: isTrawlError(e) ? e.code : 'internal_error', ...(isTrawlError(e) && e.detail ? { detail: this.#o.redact(e.detail) } : {}) };
    }
    this.#count(item, failed, await repo.finishItem(this.#o.store.db, item, page, failed, this.#o.store.now().toISOString()));
  }

  /** A page counts once it is written (a claim that lost its item to another runner wrote nothing). */
  #count(item: ClaimedItem, failed: boolean, written: boolean): void {
    if (written) jobPages.inc({ kind: item.kind, outcome: failed ? 'failed' : 'done' });
  }

  async #crawl(item: ClaimedItem): Promise<void> {
    const o = JSON.parse(item.options) as CrawlJobOptions;
    let outcome: ItemOutcome;
    try {
      outcome = await crawlItem(forOwner(this.#o.engine, item.account_id), item, o, o.schema ? compileSchema(o.schema) : undefined, this.#robots, this.#hosts);
    } catch (e) {
      outcome = { page: { url: item.url, depth: item.depth, error: isTrawlError(e) ? e.code : 'internal_error', ...(isTrawlError(e) && e.detail ? { detail: this.#o.redact(e.detail) } : {}) }, failed: true, discovered: [] };
    }
    this.#count(item, outcome.failed, await repo.finishItem(this.#o.store.db, item, outcome.page, outcome.failed, this.#o.store.now().toISOString(), outcome.discovered));
  }
}
