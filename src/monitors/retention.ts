/**
 * The pruner (issue 27, point 6): keeps what monitors and the API store bounded.
 *  - unchanged successful runs older than a day → a count per monitor and day;
 *  - runs, run counts, webhook events, ended deliveries and their attempts older than
 *    TRAWL_RUN_RETENTION_DAYS → deleted (never a monitor's latest run or latest successful run,
 *    never a delivery still pending or sending, nor its event);
 *  - usage rows older than a day → summed per hour into usage_hourly (kept USAGE_HOURLY_DAYS);
 *  - snapshots no run and no baseline refers to, expired dashboard sessions → deleted;
 *  - screenshots past TRAWL_FILE_RETENTION_HOURS → deleted, their bytes from the file store first;
 *    an account's oldest while it holds more than TRAWL_FILES_MAX_MB_PER_ACCOUNT → deleted; each
 *    hour, the file store's temporary files of writes that never finished and bytes no row knows,
 *    older than an hour → deleted; scrape cache entries whose files are gone, and the oldest
 *    while the cache is over TRAWL_CACHE_MAX_MB → deleted.
 * Every statement handles at most `batch` rows in a short transaction, and a pass stops after
 * `budgetMs`, so the pruner never holds long locks nor starves the scheduler. Several pruners on
 * one database are harmless (rows are taken with SKIP LOCKED and summed from what was deleted).
 */
import {
  fileKeeper,
  jobs as jobsRepo,
  resultCache as cacheRepo,
  retention as repo,
  type Store,
} from '../store/index.js';

const DAY_MS = 86_400_000;
/** Unchanged runs are collapsed into counts after this. */
export const COLLAPSE_AFTER_MS = DAY_MS;
/** Usage rows are summed per hour after this. */
export const USAGE_RAW_MS = DAY_MS;
/** Hourly usage is kept this long (a year and a month: last year's same month stays comparable). */
export const USAGE_HOURLY_DAYS = 400;
/** A pass every this (plus jitter, so several workers do not start together). */
export const PRUNE_EVERY_MS = 5 * 60_000;
export const PRUNE_BATCH = 1000;
/** Snapshots are swept every this many passes (an hour at the default pace). */
export const SNAPSHOT_SWEEP_EVERY = 12;
/** Most time one pass works before it leaves the rest to the next. */
export const PRUNE_BUDGET_MS = 30_000;
/** The file store's sweep leaves files younger than this (a write in progress is not an orphan). */
export const FILE_SWEEP_AGE_MS = 3600_000;

export interface PruneOptions {
  retentionDays: number;
  /** Ended jobs (their pages and items) are kept this long. @default 72 */
  jobRetentionHours?: number;
  /** Bytes the scrape result cache may hold. @default 512 MiB */
  cacheMaxBytes?: number;
  /** Bytes of files one account may hold; unset: no bound. */
  filesMaxBytesPerAccount?: number;
  now?: Date;
  batch?: number;
  budgetMs?: number;
  /** Sweep unreferenced snapshots (reads every old snapshot's key: the Pruner does it every SNAPSHOT_SWEEP_EVERY passes). @default true */
  sweepSnapshots?: boolean;
  /** Sweep the file store for temporary files and bytes no row knows (lists every file: every SNAPSHOT_SWEEP_EVERY passes too). @default true */
  sweepFiles?: boolean;
  /** Asked between batches: true ends the pass (the process is stopping). */
  stopped?: () => boolean;
}

export interface PruneStats {
  collapsed: number;
  runs: number;
  runCounts: number;
  deliveries: number;
  attempts: number;
  events: number;
  usage: number;
  usageHourly: number;
  sessions: number;
  snapshots: number;
  /** Rows of ended jobs (pages, items, jobs). */
  jobRows: number;
  /** Screenshots deleted: expired, or their account's oldest over its bound. */
  files: number;
  /** File store leftovers deleted: temporary files of failed writes, bytes whose row was gone. */
  fileLeftovers: number;
  /** Scrape cache entries (expired, or the oldest over the bound). */
  cacheEntries: number;
  /** Rows handled per second over the pass. */
  rowsPerSecond: number;
  ms: number;
  /** True when the budget ran out before everything due was pruned. */
  partial: boolean;
}

/** TRAWL_CACHE_MAX_MB's default. */
const DEFAULT_CACHE_BYTES = 512 * 2 ** 20;

const yieldToOthers = () => new Promise<void>((r) => setImmediate(r));

/** One pass over everything due at `now`. */
export async function prune(store: Store, options: PruneOptions): Promise<PruneStats> {
  const db = store.db;
  const now = options.now ?? new Date();
  const batch = options.batch ?? PRUNE_BATCH;
  const started = Date.now();
  const deadline = started + (options.budgetMs ?? PRUNE_BUDGET_MS);
  const retentionCut = new Date(now.getTime() - options.retentionDays * DAY_MS);
  const s: PruneStats = {
    collapsed: 0,
    runs: 0,
    runCounts: 0,
    deliveries: 0,
    attempts: 0,
    events: 0,
    usage: 0,
    usageHourly: 0,
    sessions: 0,
    snapshots: 0,
    jobRows: 0,
    files: 0,
    fileLeftovers: 0,
    cacheEntries: 0,
    rowsPerSecond: 0,
    ms: 0,
    partial: false,
  };
  const out = () => (options.stopped?.() || Date.now() >= deadline ? (s.partial = true) : false);
  /** Repeats `step` while it fills its batch and time is left; adds what it did to `key`. */
  const drain = async (key: keyof PruneStats, step: () => Promise<number>, full = (n: number) => n >= batch) => {
    for (;;) {
      if (out()) return;
      const n = await step();
      (s[key] as number) += n;
      if (!full(n)) return;
      await yieldToOthers();
    }
  };
  await drain('collapsed', () => repo.collapseUnchangedRuns(db, new Date(now.getTime() - COLLAPSE_AFTER_MS), batch));
  await drain('runs', () => repo.deleteOldRuns(db, retentionCut, batch));
  await drain(
    'runCounts',
    () => repo.deleteOldRunCounts(db, retentionCut.toISOString().slice(0, 10), batch),
    (n) => n > 0,
  );
  await drain(
    'deliveries',
    async () => {
      // Attempts are up to TRAWL_WEBHOOK_MAX_ATTEMPTS a delivery: fewer deliveries a batch keeps the statement bounded.
      const [d, a] = await repo.deleteOldDeliveries(db, retentionCut, Math.max(1, Math.floor(batch / 4)));
      s.attempts += a;
      return d;
    },
    (n) => n >= Math.max(1, Math.floor(batch / 4)),
  );
  await drain('events', () => repo.deleteOldEvents(db, retentionCut, batch));
  await drain('usage', () => repo.aggregateUsage(db, new Date(now.getTime() - USAGE_RAW_MS), batch));
  await drain(
    'usageHourly',
    () => repo.deleteOldUsageHour(db, new Date(now.getTime() - USAGE_HOURLY_DAYS * DAY_MS)),
    (n) => n > 0,
  );
  await drain('sessions', () => repo.deleteExpiredSessions(db, now, batch));
  const jobCut = new Date(now.getTime() - (options.jobRetentionHours ?? 72) * 3600_000).toISOString();
  await drain(
    'jobRows',
    () => jobsRepo.pruneEndedJob(db, jobCut, batch),
    (n) => n > 0,
  );
  await drain('files', () => fileKeeper.pruneExpiredFiles(store, now, batch));
  // Saves keep accounts within their bound; this pass (a scan of every account's sum) is for a
  // bound lowered since, and runs with the hourly sweep.
  const perAccount = options.filesMaxBytesPerAccount;
  if (perAccount !== undefined && options.sweepFiles !== false)
    await drain(
      'files',
      () => fileKeeper.boundAccounts(store, perAccount, 100),
      () => false,
    );
  if (options.sweepFiles !== false && !out()) {
    const swept = await fileKeeper.sweepFiles(store, new Date(now.getTime() - FILE_SWEEP_AGE_MS));
    s.fileLeftovers += swept.temporary + swept.orphans;
  }
  // One call loops itself until the cache is under its bound.
  await drain(
    'cacheEntries',
    () => cacheRepo.pruneCache(db, now, options.cacheMaxBytes ?? DEFAULT_CACHE_BYTES, batch),
    () => false,
  );
  // Last: the runs deleted above released their snapshots.
  // Pages through candidates in hash order, so snapshots kept by a baseline are not read again and again.
  let baselines: Set<string> | undefined;
  let after = '';
  while (options.sweepSnapshots !== false) {
    if (out()) break;
    baselines ??= await repo.baselineSnapshots(db);
    const r = await repo.pruneSnapshots(db, now, after, batch, baselines);
    s.snapshots += r.deleted;
    if (r.seen < batch || !r.last) break;
    after = r.last;
    await yieldToOthers();
  }
  s.ms = Date.now() - started;
  const rows =
    s.collapsed +
    s.runs +
    s.runCounts +
    s.deliveries +
    s.attempts +
    s.events +
    s.usage +
    s.usageHourly +
    s.sessions +
    s.snapshots +
    s.jobRows +
    s.files +
    s.fileLeftovers +
    s.cacheEntries;
  s.rowsPerSecond = s.ms > 0 ? Math.round((rows * 1000) / s.ms) : rows;
  return s;
}

export interface PrunerOptions {
  store: Store;
  retentionDays: number;
  jobRetentionHours?: number;
  cacheMaxBytes?: number;
  filesMaxBytesPerAccount?: number;
  everyMs?: number;
  log?: { info?(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** Runs `prune` now and then in the scheduler's process (embedded `trawl serve`, each `trawl worker`). */
export class Pruner {
  readonly #o: PrunerOptions;
  #timer?: NodeJS.Timeout;
  #pass?: Promise<unknown>;
  #stopped = false;
  #passes = 0;

  constructor(options: PrunerOptions) {
    this.#o = options;
  }

  start(): void {
    const every = this.#o.everyMs ?? PRUNE_EVERY_MS;
    // The first pass a little after start-up (the scheduler's recovery goes first), then every `every` ± 20 %.
    const schedule = (ms: number) => {
      if (this.#stopped) return;
      this.#timer = setTimeout(() => {
        this.#pass = this.runOnce().finally(() => schedule(every * (0.8 + Math.random() * 0.4)));
      }, ms);
      this.#timer.unref();
    };
    schedule(Math.min(every, 30_000) * (0.5 + Math.random() * 0.5));
  }

  /** One pass; errors are logged, not thrown (the next pass tries again). */
  async runOnce(): Promise<PruneStats | undefined> {
    try {
      const stats = await prune(this.#o.store, {
        retentionDays: this.#o.retentionDays,
        jobRetentionHours: this.#o.jobRetentionHours,
        cacheMaxBytes: this.#o.cacheMaxBytes,
        filesMaxBytesPerAccount: this.#o.filesMaxBytesPerAccount,
        stopped: () => this.#stopped,
        sweepSnapshots: this.#passes % SNAPSHOT_SWEEP_EVERY === 0,
        sweepFiles: this.#passes++ % SNAPSHOT_SWEEP_EVERY === 0,
      });
      const pruned =
        stats.collapsed +
        stats.runs +
        stats.deliveries +
        stats.events +
        stats.usage +
        stats.snapshots +
        stats.files +
        stats.fileLeftovers +
        stats.cacheEntries;
      if (pruned) this.#o.log?.info?.({ ...stats }, 'retention: pruned');
      return stats;
    } catch (err) {
      if (!this.#stopped) this.#o.log?.error({ err }, 'retention pass failed; the next pass tries again');
      return undefined;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#pass;
  }
}

/**
 * The file store's sweep alone, each `everyMs`, in a process that runs no pruner (a scale-out API
 * process): should its files folder not be shared with the workers (a misconfiguration: the
 * others could not serve its files), the bytes it saved still leave the disk once a pruner
 * elsewhere deleted their rows.
 */
export class FileSweeper {
  #timer?: NodeJS.Timeout;
  #pass?: Promise<unknown>;

  constructor(
    private readonly store: Store,
    private readonly everyMs = PRUNE_EVERY_MS * SNAPSHOT_SWEEP_EVERY,
    private readonly log?: PrunerOptions['log'],
  ) {}

  start(): void {
    this.#timer = setInterval(() => {
      this.#pass ??= this.runOnce().finally(() => (this.#pass = undefined));
    }, this.everyMs);
    this.#timer.unref();
  }

  async runOnce(): Promise<void> {
    try {
      const s = await fileKeeper.sweepFiles(this.store, new Date(Date.now() - FILE_SWEEP_AGE_MS));
      if (s.temporary + s.orphans) this.log?.info?.({ ...s }, 'retention: file store swept');
    } catch (err) {
      this.log?.error({ err }, 'file store sweep failed; the next one tries again');
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#pass;
  }
}
