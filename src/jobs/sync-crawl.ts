/**
 * A synchronous crawl (POST /v1/crawl without `async`) on the job machinery: a job whose pages the
 * job runners take (this process's, or every worker's in scale-out, under the same per-host
 * politeness and account cap as any job), waited for within the crawl's time budget and read back
 * in breadth-first order. The job stays listed, its pages readable from GET /v1/jobs/{id} once the
 * answer was charged, until retention like any job's.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { CrawlResult, CrawledPage } from '../engine/crawl/crawler.js';
import { answerTooLarge } from '../answer-cap.js';
import { ERROR_CATALOGUE, TrawlError, type ErrorCode } from '../errors.js';
import { jobs as repo, storeUnreachable, type Store } from '../store/index.js';
import type { CrawlJobOptions } from './crawl-item.js';

/** How often the job's state is read while waiting, at most (it starts at 5 ms for small crawls). */
const MAX_POLL_MS = 50;
/** Pages read from the store at once for the answer. */
const READ_BATCH = 100;
/** How long the answer waits for a store that went away once the crawl is over (a restart, a failover). */
const STORE_GRACE_MS = 20_000;

export interface SyncCrawl {
  id: string;
  accountId: string;
  options: CrawlJobOptions;
  /** Budget for the whole crawl: pages not done by then are cancelled and the answer is `truncated`. */
  timeoutMs: number;
  /** The caller went away: the job is cancelled. */
  signal: AbortSignal;
  /** Tells this process's runner to look now (embedded). */
  wake?: () => void;
  /** Bytes the answer may hold (TRAWL_ANSWER_MAX_MB); more is 413 and the pages are dropped. */
  maxBytes?: number;
}

export async function crawlAsJob(store: Store, c: SyncCrawl): Promise<CrawlResult> {
  const db = store.db;
  await repo.createJob(db, {
    id: c.id,
    accountId: c.accountId,
    kind: 'crawl',
    options: c.options,
    urls: [c.options.url],
    maxItems: c.options.limit,
    at: store.now().toISOString(),
    // Not readable from the jobs API until the answer is charged (answered: the caller releases it).
    held: true,
  });
  c.wake?.();
  const deadline = Date.now() + c.timeoutMs;
  let timedOut = false;
  for (let wait = 5; ; wait = Math.min(2 * wait, MAX_POLL_MS)) {
    // The store away: the runners keep the pages they finish meanwhile, so the crawl waits for it.
    const state = await repo.jobState(db, c.id).catch((e) => {
      if (storeUnreachable(e) && Date.now() < deadline) return 'running' as const;
      throw e;
    });
    if (state !== 'queued' && state !== 'running') break;
    if (c.signal.aborted) await hungUp(store, c);
    if (Date.now() >= deadline) {
      // Pages done are kept; those in flight are not written (cancel).
      await patiently(() => repo.cancelJob(db, c.accountId, c.id, store.now().toISOString()));
      timedOut = true;
      break;
    }
    await sleep(Math.min(wait, deadline - Date.now()), c.signal);
  }
  const job = (await patiently(() => repo.getJob(db, c.accountId, c.id)))!;
  const pages: CrawledPage[] = [];
  const errors: CrawlResult['errors'] = [];
  let first: { error: string; detail?: string } | undefined;
  let bytes = 0;
  for (let after: { depth: number; seq: number } | undefined; ;) {
    const rows = await patiently(() => repo.pagesByDepth(db, c.id, after, READ_BATCH));
    for (const r of rows) {
      bytes += r.page.length;
      if (bytes > (c.maxBytes ?? Infinity)) await tooLarge(store, c, bytes);
      const page = JSON.parse(r.page) as CrawledPage & { error?: string; detail?: string };
      if (r.state === 'failed' && page.error) {
        if (Number(r.seq) === 0) first = page as { error: string; detail?: string };
        errors.push({ url: page.url, error: page.error, ...(page.detail ? { detail: page.detail } : {}) });
      } else pages.push(page);
    }
    if (rows.length < READ_BATCH) break;
    const last = rows.at(-1)!;
    after = { depth: Number(last.depth), seq: Number(last.seq) };
  }
  // A start page that could not be fetched fails the crawl with its own error (502, 403 …), as
  // a scrape of it would; one that was only skipped (robots, not HTML) is listed in `errors`.
  if (!pages.length && first && first.error in ERROR_CATALOGUE)
    throw new TrawlError(first.error as ErrorCode, first.detail);
  // The budget ran out before the start page came back: nothing was crawled (504, no credit).
  if (!pages.length && timedOut)
    throw new TrawlError(
      'timeout',
      `the crawl used its whole time budget (timeout_ms ${c.timeoutMs}) before its start page came back`,
    );
  // The caller went away while the answer was read: no credit, so nothing to read later either.
  if (c.signal.aborted) await hungUp(store, c);
  return {
    pages,
    total: pages.length,
    truncated: timedOut || Number(job.truncated) === 1,
    errors,
  };
}

/**
 * The crawl's answer was charged: its pages become readable from GET /v1/jobs/{id}. Had it failed
 * (not charged), its pages are dropped instead, as for a caller who hung up.
 */
export async function settleSyncCrawl(store: Store, id: string, paid: boolean, error?: string): Promise<void> {
  if (paid) await patiently(() => repo.releaseJob(store.db, id));
  else
    await patiently(() =>
      repo.dropPages(
        store.db,
        id,
        store.now().toISOString(),
        `the crawl failed (${error}): not charged, its pages dropped`,
      ),
    );
}

/**
 * The caller hung up: the job is cancelled and, as it is not charged, its pages are dropped (a
 * caller could otherwise hang up once the pages were done and read them from GET /v1/jobs/{id}
 * for nothing). The job stays listed, cancelled, saying why.
 */
async function hungUp(store: Store, c: SyncCrawl): Promise<never> {
  await patiently(() =>
    repo.dropPages(
      store.db,
      c.id,
      store.now().toISOString(),
      'the caller hung up before the answer: the crawl was cancelled, not charged, and its pages dropped',
    ),
  );
  throw new TrawlError('fetch_failed', 'the crawl was cancelled');
}

/**
 * The pages come to more than one answer may hold: refused before they are all read, not charged,
 * and — as for a caller who hung up — dropped, so they cannot be read for nothing either.
 */
async function tooLarge(store: Store, c: SyncCrawl, bytes: number): Promise<never> {
  const error = answerTooLarge(
    bytes,
    c.maxBytes!,
    'crawl with "async": true and read the pages from GET /v1/jobs/{id} (10 MiB at a time), or lower limit',
  );
  await patiently(() => repo.dropPages(store.db, c.id, store.now().toISOString(), error.detail));
  throw error;
}

/** A read or write tried again while the store is unreachable, for up to STORE_GRACE_MS. */
async function patiently<T>(work: () => Promise<T>): Promise<T> {
  const end = Date.now() + STORE_GRACE_MS;
  for (let wait = 100; ; wait = Math.min(2 * wait, 2000)) {
    try {
      return await work();
    } catch (e) {
      if (!storeUnreachable(e) || Date.now() + wait > end) throw e;
      await delay(wait);
    }
  }
}

/** Waits `ms`, or less when the caller goes away. */
const sleep = (ms: number, signal: AbortSignal) => delay(Math.max(0, ms), undefined, { signal }).catch(() => undefined);
