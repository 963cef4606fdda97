/**
 * Jobs: a job row, its items (the frontier, one per URL, claimed with leases so a dead worker's
 * items come back) and its result pages in completion order. Counts live on the job row and move
 * in the same transaction as the item and its page, so progress is exact and every item ends in
 * one page.
 */
import { PostgresAdapter, sql, type ExpressionBuilder } from 'kysely';
import type { Database, Job, JobState } from '../tables.js';
import type { Db } from './accounts.js';
import { insertEvents, type NewJobEvent } from './job-events.js';

const postgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;
const ITEM_BATCH = 1000;

/**
 * The events a change to a job makes (job.page for a page written, job.completed once it ended),
 * built by the caller (../../jobs/events.ts) from the job as the change left it; the store
 * writes them in the change's transaction.
 */
export type JobEventBuilder = (job: Job, page: { n: number; page: unknown } | null) => NewJobEvent[];

export async function createJob(
  db: Db,
  job: {
    id: string;
    accountId: string;
    kind: 'crawl' | 'batch';
    options: unknown;
    urls: string[];
    maxItems: number;
    at: string;
    webhook?: string;
    webhookEvents?: string[];
    /** A synchronous crawl: its pages are not readable from the jobs API until `releaseJob`. */
    held?: boolean;
  },
  /** Events of the job's start (a Firecrawl webhook's `started`), written with it. */
  events: NewJobEvent[] = [],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('jobs')
      .values({
        id: job.id,
        account_id: job.accountId,
        kind: job.kind,
        state: 'queued',
        options: JSON.stringify(job.options),
        total: job.urls.length,
        max_items: job.maxItems,
        seq_next: job.urls.length,
        error: null,
        created_at: job.at,
        started_at: null,
        finished_at: null,
        webhook: job.webhook ?? null,
        webhook_events: job.webhookEvents ? JSON.stringify(job.webhookEvents) : null,
        held: job.held ? 1 : 0,
      })
      .execute();
    for (let i = 0; i < job.urls.length; i += ITEM_BATCH) {
      // SQLite writes on this thread: between batches other requests are served (a 10,000-URL
      // batch would hold the event loop ~100 ms at once; its queries wait for the transaction).
      if (i) await new Promise((r) => setImmediate(r));
      await trx
        .insertInto('job_items')
        .values(
          job.urls
            .slice(i, i + ITEM_BATCH)
            .map((url, k) => ({ job_id: job.id, seq: i + k, url, state: 'queued' as const, lease_until: null })),
        )
        .execute();
    }
    await insertEvents(trx, { id: job.id, account_id: job.accountId }, events, job.at);
  });
}

export const getJob = (db: Db, accountId: string, id: string): Promise<Job | undefined> =>
  db.selectFrom('jobs').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();

/** Newest first; `before` is the created_at|id of the previous page's last job. */
export function listJobs(
  db: Db,
  accountId: string,
  limit: number,
  before?: { createdAt: string; id: string },
): Promise<Job[]> {
  let q = db.selectFrom('jobs').selectAll().where('account_id', '=', accountId);
  if (before)
    q = q.where((eb) =>
      eb.or([
        eb('created_at', '<', before.createdAt),
        eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
      ]),
    );
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** A job's state (undefined: gone), for runners deciding whether to fetch its page. */
export const jobState = async (db: Db, id: string): Promise<JobState | undefined> =>
  (await db.selectFrom('jobs').select('state').where('id', '=', id).executeTakeFirst())?.state;

/**
 * Another item of the job has this URL in hand (fetching or done): a redirect to it need not be
 * followed, the page is that item's. A queued or cut one is not: the redirect fetches it for it.
 */
export const itemTaken = async (db: Db, jobId: string, url: string): Promise<boolean> => {
  const row = await db
    .selectFrom('job_items')
    .select('state')
    .where('job_id', '=', jobId)
    .where('url', '=', url)
    .executeTakeFirst();
  return row !== undefined && row.state !== 'queued' && row.state !== 'cut';
};

/** A synchronous crawl's answer was charged: its pages become readable from the jobs API. */
export async function releaseJob(db: Db, id: string): Promise<void> {
  await db.updateTable('jobs').set({ held: 0 }).where('id', '=', id).execute();
}

/** Pages of a job that is not held (a synchronous crawl not yet charged has none to read). */
const unheld = (eb: ExpressionBuilder<Database, 'job_pages'>) =>
  eb.not(
    eb.exists(
      eb.selectFrom('jobs').select('jobs.id').whereRef('jobs.id', '=', 'job_pages.job_id').where('jobs.held', '=', 1),
    ),
  );

/** Pages after cursor `n` (exclusive), in completion order. */
export const pagesAfter = (db: Db, jobId: string, after: number, limit: number) =>
  db
    .selectFrom('job_pages')
    .select(['n', 'page'])
    .where('job_id', '=', jobId)
    .where(unheld)
    .where('n', '>', after)
    .orderBy('n')
    .limit(limit)
    .execute();

/**
 * A crawl's pages in breadth-first order (depth, then admission order: a page's links in the order
 * they appear, pages of one depth in the order they were found), after `after`'s (depth, seq).
 */
export const pagesByDepth = (
  db: Db,
  jobId: string,
  after: { depth: number; seq: number } | undefined,
  limit: number,
) => {
  let q = db
    .selectFrom('job_pages')
    .innerJoin('job_items', (j) =>
      j.onRef('job_items.job_id', '=', 'job_pages.job_id').onRef('job_items.seq', '=', 'job_pages.seq'),
    )
    .select(['job_items.depth', 'job_pages.seq', 'job_pages.page', 'job_items.state'])
    .where('job_pages.job_id', '=', jobId);
  if (after)
    q = q.where((eb) =>
      eb.or([
        eb('job_items.depth', '>', after.depth),
        eb.and([eb('job_items.depth', '=', after.depth), eb('job_pages.seq', '>', after.seq)]),
      ]),
    );
  return q.orderBy('job_items.depth').orderBy('job_pages.seq').limit(limit).execute();
};

/** Whether a page follows cursor `n` (its number only: the page is not read). */
export const hasPageAfter = async (db: Db, jobId: string, after: number): Promise<boolean> =>
  !!(await db
    .selectFrom('job_pages')
    .select('n')
    .where('job_id', '=', jobId)
    .where(unheld)
    .where('n', '>', after)
    .limit(1)
    .executeTakeFirst());

/**
 * Failed pages after cursor `n` (their items ended `failed`), in completion order: an errors
 * listing reads these few small rows, not every page's content (a job's pages may be GBs).
 */
export const failedPagesAfter = (db: Db, jobId: string, after: number, limit: number) =>
  db
    .selectFrom('job_pages')
    .innerJoin('job_items', (j) =>
      j.onRef('job_items.job_id', '=', 'job_pages.job_id').onRef('job_items.seq', '=', 'job_pages.seq'),
    )
    .select(['job_pages.n', 'job_pages.page'])
    .where('job_pages.job_id', '=', jobId)
    .where(unheld)
    .where('job_items.state', '=', 'failed')
    .where('job_pages.n', '>', after)
    .orderBy('job_pages.n')
    .limit(limit)
    .execute();

/** Pages read from the store at once when a reader bounds its bytes (a page may be tens of MB). */
const PAGES_PER_READ = 8;

/**
 * Pages after cursor `n`, at most `limit`, stopping before the page that would take the text read
 * past `maxBytes` (one page at least), read a few at a time: one answer never holds a job's whole
 * bulk (100 pages of 3 MB in three formats made a 600 MB body, past what a string can hold).
 * `cut` tells the caller pages were left for the next cursor.
 */
export async function pagesWithin(
  db: Db,
  jobId: string,
  after: number,
  limit: number,
  maxBytes: number,
): Promise<{ rows: { n: number; page: string }[]; cut: boolean }> {
  const rows: { n: number; page: string }[] = [];
  let bytes = 0;
  let from = after;
  while (rows.length < limit) {
    const want = Math.min(PAGES_PER_READ, limit - rows.length);
    const part = await pagesAfter(db, jobId, from, want);
    for (const r of part) {
      if (rows.length && bytes + r.page.length > maxBytes) return { rows, cut: true };
      rows.push({ n: Number(r.n), page: r.page });
      bytes += r.page.length;
    }
    if (part.length < want) break;
    from = Number(part.at(-1)!.n);
  }
  return { rows, cut: false };
}

/** Cancels a job still queued or running: its queued items are dropped (pages done are kept). False when it had ended. */
export async function cancelJob(
  db: Db,
  accountId: string,
  id: string,
  at: string,
  events?: JobEventBuilder,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const job = await trx
      .updateTable('jobs')
      .set({ state: 'cancelled', finished_at: at })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('state', 'in', ['queued', 'running'])
      .returningAll()
      .executeTakeFirst();
    if (!job) return false;
    // Items in flight too: their pages are not written (the job no longer runs).
    await stopItems(trx, id);
    if (events) await insertEvents(trx, job, events(job, null), at);
    return true;
  });
}

/**
 * Drops a job's pages (a synchronous crawl whose caller hung up: not charged, so nothing of it is
 * readable). The job ends cancelled with `error` saying why; its items stop (none is written after).
 */
export async function dropPages(db: Db, id: string, at: string, error: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // (written 0: no page is left to read, so a reader's next_cursor ends; the first reason given stays.)
    await trx
      .updateTable('jobs')
      .set({
        state: 'cancelled',
        finished_at: sql`coalesce(finished_at, ${at})`,
        error: sql`coalesce(error, ${error})`,
        written: 0,
      })
      .where('id', '=', id)
      .execute();
    await stopItems(trx, id);
    await trx.deleteFrom('job_pages').where('job_id', '=', id).execute();
  });
}

/** A cancelled job's items still to do or in flight end cancelled (no page of theirs is written after). */
const stopItems = (trx: Db, id: string) =>
  trx
    .updateTable('job_items')
    .set({ state: 'cancelled', lease_until: null })
    .where('job_id', '=', id)
    .where('state', 'in', ['queued', 'running'])
    .execute();

export interface ClaimedItem {
  job_id: string;
  seq: number;
  url: string;
  depth: number;
  account_id: string;
  kind: 'crawl' | 'batch';
  options: string;
  /** The claim's number (the item's attempts): finishing checks the item is still this claim's. */
  attempts: number;
}

/**
 * Items to work on now, oldest job first, each job's items in order: queued items of queued or
 * running jobs, or running items whose lease passed (their worker died). At most `perAccount`
 * items per account in one claim, so one account's 10,000-URL batch does not fill the batch
 * ahead of another's, and never past the account's cap (`accountCap`) counted across every
 * process. On PostgreSQL racing claimers skip each other's rows.
 */
export async function claimItems(
  db: Db,
  now: Date,
  limit: number,
  leaseMs: number,
  perAccount: number,
  accountCap = Infinity,
): Promise<ClaimedItem[]> {
  if (limit <= 0) return [];
  const nowIso = now.toISOString();
  const lease = new Date(now.getTime() + leaseMs).toISOString();
  return db.transaction().execute(async (trx) => {
    // Claims one at a time across processes, so the account cap is exact (claims are short).
    if (postgres(trx) && Number.isFinite(accountCap))
      await sql`SELECT pg_advisory_xact_lock(${CLAIM_LOCK})`.execute(trx);
    const room = Number.isFinite(accountCap) ? await accountRoom(trx, nowIso, accountCap) : new Map<string, number>();
    // Rows picked (their attempts as read), and what each account may still take in this claim.
    const picked: ClaimedItem[] = [];
    const taken = new Map<string, number>();
    const left = (account: string) => Math.min(perAccount, room.get(account) ?? Infinity) - (taken.get(account) ?? 0);
    const take = (r: ClaimedItem) => {
      picked.push(r);
      taken.set(r.account_id, (taken.get(r.account_id) ?? 0) + 1);
    };
    // Jobs not yet started become running in this claim: their rows are locked before any item
    // (the order cancels and finishes lock in, job then items; items first deadlocked with a
    // cancel of a job just made).
    const locked = postgres(trx)
      ? new Set(
          (
            await trx.selectFrom('jobs').select('id').where('state', '=', 'queued').orderBy('id').forUpdate().execute()
          ).map((r) => r.id),
        )
      : undefined;
    // Items whose worker died first (their lease passed): few, through the running index.
    let expired = trx
      .selectFrom('job_items')
      .innerJoin('jobs', 'jobs.id', 'job_items.job_id')
      .select(ITEM_COLUMNS)
      .where('jobs.state', 'in', ['queued', 'running'])
      .where('job_items.state', '=', 'running')
      .where('job_items.lease_until', '<', nowIso)
      .orderBy('jobs.created_at')
      .orderBy('job_items.seq')
      .limit(limit * 4);
    if (postgres(trx)) expired = expired.forUpdate('job_items').skipLocked();
    for (const r of await expired.execute())
      if (picked.length < limit && left(r.account_id) > 0) take(r as ClaimedItem);
    // Then queued items, oldest job first, each job's in order, asked job by job through the
    // queued index: one query over every queued item sorted them all, and a claim cost as much
    // as the frontier was long (4 ms a claim with 8,000 queued; 0.5 ms this way).
    if (picked.length < limit) {
      const active = await trx
        .selectFrom('jobs')
        .select(['id', 'account_id', 'kind', 'options', 'state', 'done', 'failed'])
        .where('state', 'in', ['queued', 'running'])
        // (Only jobs with a queued item: a job whose pages are all in flight costs no query.)
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('job_items')
              .select('seq')
              .whereRef('job_items.job_id', '=', 'jobs.id')
              .where('job_items.state', '=', 'queued'),
          ),
        )
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      // An account's jobs share its room, fewest pages in hand first (then anything left, oldest
      // job first): taken oldest job first, a synchronous crawl waited for an older job of its
      // account until that one's whole frontier was fetched, and answered nothing.
      // A job made while the lock above waited is left to the next claim: its row is not this
      // claim's, and taking its items first would deadlock with a cancel (row, then items).
      const claimable = active.filter((job) => !(locked && job.state === 'queued' && !locked.has(job.id)));
      const shares = await fairShares(trx, nowIso, claimable, limit - picked.length, left);
      const deepest = await claimableDepths(trx, claimable);
      const last = new Map<string, { depth: number; seq: number }>();
      const drained = new Set<string>();
      for (const share of [shares, undefined]) {
        for (const job of claimable) {
          const want = Math.min(
            limit - picked.length,
            left(job.account_id),
            share ? (share.get(job.id) ?? 0) : Infinity,
          );
          if (want <= 0 || drained.has(job.id)) continue;
          let q = trx
            .selectFrom('job_items')
            .select(['job_id', 'seq', 'url', 'depth', 'attempts'])
            .where('job_id', '=', job.id)
            .where('state', '=', 'queued')
            .orderBy('depth')
            .orderBy('seq')
            .limit(want);
          const ceiling = deepest.get(job.id);
          if (ceiling !== undefined) q = q.where('depth', '<=', ceiling);
          const after = last.get(job.id);
          if (after)
            q = q.where((eb) =>
              eb.or([
                eb('depth', '>', after.depth),
                eb.and([eb('depth', '=', after.depth), eb('seq', '>', after.seq)]),
              ]),
            );
          if (postgres(trx)) q = q.forUpdate().skipLocked();
          const rows = await q.execute();
          for (const r of rows) {
            take({ ...r, account_id: job.account_id, kind: job.kind as ClaimedItem['kind'], options: job.options });
            last.set(job.id, { depth: Number(r.depth), seq: Number(r.seq) });
          }
          if (rows.length < want) drained.add(job.id);
          if (picked.length >= limit) break;
        }
        if (picked.length >= limit) break;
      }
    }
    // One statement for the batch (per job: its seqs).
    const byJob = new Map<string, number[]>();
    for (const r of picked) byJob.set(r.job_id, [...(byJob.get(r.job_id) ?? []), r.seq]);
    if (byJob.size) {
      await trx
        .updateTable('job_items')
        .set((eb) => ({ state: 'running', lease_until: lease, attempts: eb('attempts', '+', 1) }))
        .where((eb) => eb.or([...byJob].map(([job, seqs]) => eb.and([eb('job_id', '=', job), eb('seq', 'in', seqs)]))))
        .execute();
    }
    const jobs = [...new Set(picked.map((r) => r.job_id))];
    if (jobs.length)
      await trx
        .updateTable('jobs')
        .set({ state: 'running', started_at: nowIso })
        .where('id', 'in', jobs)
        .where('state', '=', 'queued')
        .execute();
    return picked.map((r) => ({ ...r, attempts: Number(r.attempts) + 1 }) as ClaimedItem);
  });
}

/**
 * The deepest level each crawl may take items from now: one below its shallowest item still open
 * (queued or running). A page is claimed only once every page two or more levels above it has
 * ended, so each page found has been found by its shallowest parent by then and carries its
 * breadth-first depth: a slow page on a short path can no longer be outrun by a longer path
 * whose depth would stop the crawl a level early (at `max_depth`, its links are not followed).
 * Two levels are in flight at once, so a straggler rarely idles the runners.
 */
async function claimableDepths(trx: Db, jobs: { id: string; kind: string }[]): Promise<Map<string, number>> {
  const deepest = new Map<string, number>();
  for (const job of jobs) {
    if (job.kind !== 'crawl') continue;
    // (One probe per state, each answered by its partial index's first row.)
    const shallowest = (state: 'queued' | 'running') =>
      trx
        .selectFrom('job_items')
        .select('depth')
        .where('job_id', '=', job.id)
        .where('state', '=', state)
        .orderBy('depth')
        .limit(1)
        .executeTakeFirst();
    const open = [await shallowest('queued'), await shallowest('running')].filter((r) => r !== undefined);
    if (open.length) deepest.set(job.id, Math.min(...open.map((r) => Number(r.depth))) + 1);
  }
  return deepest;
}

const ITEM_COLUMNS = [
  'job_items.job_id',
  'job_items.seq',
  'job_items.url',
  'job_items.depth',
  'job_items.attempts',
  'jobs.account_id',
  'jobs.kind',
  'jobs.options',
] as const;

/**
 * How many items each active job may take first in a claim of `budget`: each account's room (in
 * the order of its oldest job) goes a page at a time to its job with the fewest pages in hand
 * (then the fewest pages done, then the oldest). One job per account: all of the room, as oldest-first would give it.
 */
async function fairShares(
  trx: Db,
  nowIso: string,
  active: { id: string; account_id: string; done: number; failed: number }[],
  budget: number,
  left: (account: string) => number,
): Promise<Map<string, number>> {
  const ended = new Map(active.map((j) => [j.id, Number(j.done) + Number(j.failed)]));
  const byAccount = new Map<string, string[]>();
  for (const j of active) byAccount.set(j.account_id, [...(byAccount.get(j.account_id) ?? []), j.id]);
  const shared = [...byAccount.values()].filter((ids) => ids.length > 1).flat();
  const inHand = new Map<string, number>();
  if (shared.length)
    for (const r of await trx
      .selectFrom('job_items')
      .select(['job_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('state', '=', 'running')
      .where('lease_until', '>=', nowIso)
      .where('job_id', 'in', shared)
      .groupBy('job_id')
      .execute())
      inHand.set(r.job_id, Number(r.n));
  const share = new Map<string, number>();
  for (const [account, ids] of byAccount) {
    let n = Math.min(budget, Math.max(0, left(account)));
    budget -= n;
    if (ids.length === 1) {
      share.set(ids[0], n);
      continue;
    }
    const load = (id: string) => (inHand.get(id) ?? 0) + (share.get(id) ?? 0);
    // On a tie the job with the fewest pages done: the oldest would win every freed slot back
    // while more jobs than slots wait, and the newest would never get one.
    const before = (a: string, b: string) => load(a) - load(b) || ended.get(a)! - ended.get(b)!;
    for (; n > 0; n--) {
      const next = ids.reduce((a, b) => (before(b, a) < 0 ? b : a));
      share.set(next, (share.get(next) ?? 0) + 1);
    }
  }
  return share;
}

/** Any constant: the advisory lock job claims take on PostgreSQL when an account cap applies. */
const CLAIM_LOCK = 7_102_028;

/**
 * How many more pages each account with work in flight may have: `cap` less its pages in hand
 * anywhere (claimed items whose lease holds) and its open monitor runs (contract section 7: at
 * most TRAWL_ACCOUNT_CONCURRENCY pages at once across an account's jobs and monitors).
 */
async function accountRoom(trx: Db, nowIso: string, cap: number): Promise<Map<string, number>> {
  const items = await trx
    .selectFrom('job_items')
    .innerJoin('jobs', 'jobs.id', 'job_items.job_id')
    .select(['jobs.account_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('job_items.state', '=', 'running')
    .where('job_items.lease_until', '>=', nowIso)
    .groupBy('jobs.account_id')
    .execute();
  const runs = await trx
    .selectFrom('monitor_runs')
    .select(['account_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('status', 'in', ['queued', 'running'])
    .groupBy('account_id')
    .execute();
  const room = new Map<string, number>();
  for (const r of [...items, ...runs]) room.set(r.account_id, (room.get(r.account_id) ?? cap) - Number(r.n));
  return room;
}

/** Links a crawled page found, to admit as items of the next depth. */
export interface Discovered {
  urls: string[];
  depth: number;
}

/** Most candidates one page may add (its links after filtering; the rest are not looked at). */
/** Links of one page looked at (a crawl's largest limit: a hub page listing a whole site is followed whole). */
const MAX_CANDIDATES = 100_000;
/** URLs a crawl left out kept as `cut` rows (their count is `not_fetched`): at most this many, or the limit if more. */
const MIN_CUT_KEPT = 1000;

/** One item's end, as a runner hands it to finishItems. */
export interface FinishedItem {
  item: { job_id: string; seq: number; attempts: number };
  /** The page (ok, or with `error`). */
  page: unknown;
  failed: boolean;
  discovered?: Discovered[];
  /** Crawl: the canonical URL a redirect moved the page to (the item's URL otherwise). */
  final?: string;
  /** The job's options from now on (a crawl whose start page moved to another site), for the items it admits. */
  options?: unknown;
}

/**
 * Ends items with their pages, in one transaction however many (a runner hands over what finished
 * while its previous batch was being written: group commit). Per job, its row locked first (jobs
 * in id order, so racing runners cannot deadlock): the items still this claim's are marked done
 * or failed (one whose lease passed and another took, or whose job was cancelled meanwhile,
 * writes nothing — cancel keeps the pages done, not the ones in flight), their pages numbered in
 * completion order, the links they discovered admitted (new ones only: the (job, url) index is
 * the seen set; never past the job's max_items), the counts moved, and the job completed with
 * its last item. Returns, per entry, whether it was written.
 */
export async function finishItems(
  db: Db,
  entries: FinishedItem[],
  at: string,
  events?: JobEventBuilder,
): Promise<boolean[]> {
  const byJob = new Map<string, number[]>();
  entries.forEach((e, i) => byJob.set(e.item.job_id, [...(byJob.get(e.item.job_id) ?? []), i]));
  const jobIds = [...byJob.keys()].sort();
  const found = entries.map((e) => (e.discovered ?? []).flatMap((d) => d.urls.map((url) => ({ url, depth: d.depth }))));
  const candidates = found.map((c) => c.slice(0, MAX_CANDIDATES));
  // Seq numbers for the candidates, each job's in a statement of its own outside the
  // transaction (so the job row is not held through it); numbers of seen URLs are skipped.
  const firstSeq = new Map<number, number>();
  for (const job of jobIds) {
    const want = byJob.get(job)!.reduce((n, i) => n + candidates[i].length, 0);
    if (!want) continue;
    const r = await db
      .updateTable('jobs')
      .set((eb) => ({ seq_next: eb('seq_next', '+', want) }))
      .where('id', '=', job)
      .returning('seq_next')
      .executeTakeFirst();
    if (!r) continue;
    let next = Number(r.seq_next) - want;
    for (const i of byJob.get(job)!) {
      firstSeq.set(i, next);
      next += candidates[i].length;
    }
  }
  const written = entries.map(() => false);
  await db.transaction().execute(async (trx) => {
    for (const jobId of jobIds) {
      let q = trx.selectFrom('jobs').selectAll().where('id', '=', jobId);
      if (postgres(trx)) q = q.forUpdate();
      const job = await q.executeTakeFirst();
      if (!job || job.state !== 'running') continue;
      const mine = await ours(
        trx,
        jobId,
        byJob.get(jobId)!.map((i) => ({ i, ...entries[i] })),
      );
      if (!mine.length) continue;
      let added: number[] = [];
      let cut = mine.some((i) => found[i].length > MAX_CANDIDATES);
      let notFetched = Number(job.not_fetched);
      const rows = mine.flatMap((i) =>
        firstSeq.has(i)
          ? candidates[i].map((c, k) => ({
              job_id: jobId,
              seq: firstSeq.get(i)! + k,
              url: c.url,
              depth: c.depth,
              state: 'queued' as const,
              lease_until: null,
            }))
          : [],
      );
      for (let k = 0; k < rows.length; k += ITEM_BATCH) {
        const ins = await trx
          .insertInto('job_items')
          .values(rows.slice(k, k + ITEM_BATCH))
          .onConflict((oc) => oc.doNothing())
          .returning('seq')
          .execute();
        added.push(...ins.map((x) => Number(x.seq)));
      }
      await lowerQueuedDepths(trx, jobId, rows, new Set(added));
      const failed = mine.filter((i) => entries[i].failed).length;
      let total = Number(job.total);
      // (Admitted first: a redirect's final URL found among this batch's links is seen below.)
      if (added.length) {
        // Past the job's limit the newest candidates are left out (never handed out): kept as
        // `cut` rows, so a URL found again is not counted again, up to a bound; the rest go.
        const room = Math.max(0, Number(job.max_items) - total);
        added = added.sort((a, b) => a - b);
        const over = added.slice(room);
        cut ||= over.length > 0;
        const kept = Math.max(0, Math.min(over.length, Math.max(MIN_CUT_KEPT, Number(job.max_items)) - notFetched));
        notFetched += kept;
        for (let k = 0; k < over.length; k += ITEM_BATCH) {
          const part = over.slice(k, k + ITEM_BATCH);
          const keep = part.slice(0, Math.max(0, kept - k));
          const drop = part.slice(keep.length);
          if (keep.length)
            await trx
              .updateTable('job_items')
              .set({ state: 'cut' })
              .where('job_id', '=', jobId)
              .where('seq', 'in', keep)
              .execute();
          if (drop.length)
            await trx.deleteFrom('job_items').where('job_id', '=', jobId).where('seq', 'in', drop).execute();
        }
        total += added.length - over.length;
      }
      const merged = await mergeRedirects(
        trx,
        jobId,
        mine.filter((i) => entries[i].final && !entries[i].failed).map((i) => ({ i, final: entries[i].final! })),
      );
      total -= merged.left;
      notFetched -= merged.uncut;
      const kept = mine.filter((i) => !merged.dropped.has(i));
      const done = Number(job.done) + kept.length - failed;
      const nFailed = Number(job.failed) + failed;
      const ended = done + nFailed >= total;
      // A job none of whose pages could be read (a crawl whose start page failed, a batch of dead
      // URLs) ends failed, not completed; its pages say why.
      const end = ended
        ? done === 0 && nFailed > 0
          ? { state: 'failed' as JobState, finished_at: at, error: 'every page of the job failed; its pages say why' }
          : { state: 'completed' as JobState, finished_at: at }
        : {};
      const n0 = Number(job.written);
      const now: Job = {
        ...job,
        total,
        done,
        failed: nFailed,
        written: n0 + kept.length,
        ...end,
      };
      const options = mine.map((i) => entries[i].options).find((o) => o !== undefined);
      await trx
        .updateTable('jobs')
        .set({
          total,
          done,
          failed: nFailed,
          written: now.written,
          ...(cut ? { truncated: 1 } : {}),
          ...(notFetched !== Number(job.not_fetched) ? { not_fetched: notFetched } : {}),
          ...end,
          ...(options !== undefined ? { options: JSON.stringify(options) } : {}),
        })
        .where('id', '=', jobId)
        .execute();
      const pages = kept.map((i, k) => ({
        job_id: jobId,
        n: n0 + k + 1,
        seq: entries[i].item.seq,
        page: JSON.stringify(entries[i].page),
        created_at: at,
      }));
      for (let k = 0; k < pages.length; k += 200)
        await trx
          .insertInto('job_pages')
          .values(pages.slice(k, k + 200))
          .execute();
      if (events && job.webhook) {
        const evs = kept.flatMap((i, k) =>
          events({ ...now, state: 'running', finished_at: null }, { n: n0 + k + 1, page: entries[i].page }),
        );
        if (ended) evs.push(...events(now, null));
        await insertEvents(trx, job, evs, at);
      }
      for (const i of mine) written[i] = true;
    }
  });
  return written;
}

/**
 * Links found again at a shallower depth than their queued item's (a deeper page finished first)
 * lower it: the page is fetched at its breadth-first depth, and so follows its links as far as
 * `max_depth` allows. (Items already handed out keep theirs: claims by level see to it that they
 * had their shallowest parent's depth by then.)
 */
async function lowerQueuedDepths(
  trx: Db,
  jobId: string,
  rows: { seq: number; url: string; depth: number }[],
  inserted: Set<number>,
): Promise<void> {
  const byDepth = new Map<number, string[]>();
  for (const r of rows) if (!inserted.has(r.seq)) byDepth.set(r.depth, [...(byDepth.get(r.depth) ?? []), r.url]);
  for (const [depth, urls] of byDepth)
    for (let k = 0; k < urls.length; k += ITEM_BATCH)
      await trx
        .updateTable('job_items')
        .set({ depth })
        .where('job_id', '=', jobId)
        .where('state', '=', 'queued')
        .where('depth', '>', depth)
        .where('url', 'in', urls.slice(k, k + ITEM_BATCH))
        .execute();
}

/**
 * Pages a redirect moved to another URL (a crawl's `/a` → `/b`): the final URL joins the seen set
 * (a row of its own, done: it is never fetched), a queued item of it is done by this page (it
 * leaves the count: `left`), and a page whose final URL another item already has or is
 * fetching is that item's: it is dropped (no page of its own; it leaves the count too). So each
 * URL is fetched and answered once, as in a synchronous crawl.
 */
async function mergeRedirects(
  trx: Db,
  jobId: string,
  moved: { i: number; final: string }[],
): Promise<{ dropped: Set<number>; left: number; uncut: number }> {
  const dropped = new Set<number>();
  let left = 0;
  let uncut = 0;
  for (const { i, final } of moved) {
    const other = await trx
      .selectFrom('job_items')
      .select(['seq', 'state'])
      .where('job_id', '=', jobId)
      .where('url', '=', final)
      .executeTakeFirst();
    if (other?.state === 'cut') {
      // A URL the limit left out was reached by a redirect after all: fetched now, no longer left out.
      await trx
        .updateTable('job_items')
        .set({ state: 'done' })
        .where('job_id', '=', jobId)
        .where('seq', '=', other.seq)
        .execute();
      uncut++;
      continue;
    }
    if (!other) {
      const r = await trx
        .updateTable('jobs')
        .set((eb) => ({ seq_next: eb('seq_next', '+', 1) }))
        .where('id', '=', jobId)
        .returning('seq_next')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('job_items')
        .values({ job_id: jobId, seq: Number(r.seq_next) - 1, url: final, state: 'done', lease_until: null })
        .execute();
      continue;
    }
    const taken =
      other.state === 'queued' &&
      Number(
        (
          await trx
            .updateTable('job_items')
            .set({ state: 'done' })
            .where('job_id', '=', jobId)
            .where('seq', '=', other.seq)
            .where('state', '=', 'queued')
            .executeTakeFirst()
        ).numUpdatedRows,
      ) > 0;
    if (!taken) dropped.add(i);
    left++;
  }
  return { dropped, left, uncut };
}

/** Marks the entries' items done or failed where they are still this claim's; returns those entries' indexes. */
async function ours(trx: Db, jobId: string, list: (FinishedItem & { i: number })[]): Promise<number[]> {
  const out: number[] = [];
  for (const failed of [false, true]) {
    const part = list.filter((e) => e.failed === failed);
    if (!part.length) continue;
    const rows = await trx
      .updateTable('job_items')
      .set({ state: failed ? 'failed' : 'done', lease_until: null })
      .where('job_id', '=', jobId)
      .where('state', '=', 'running')
      .where((eb) => eb.or(part.map((e) => eb.and([eb('seq', '=', e.item.seq), eb('attempts', '=', e.item.attempts)]))))
      .returning('seq')
      .execute();
    const got = new Set(rows.map((r) => Number(r.seq)));
    out.push(...part.filter((e) => got.has(e.item.seq)).map((e) => e.i));
  }
  return out.sort((a, b) => a - b);
}

/** One item's end (see finishItems). */
export async function finishItem(
  db: Db,
  item: FinishedItem['item'],
  page: unknown,
  failed: boolean,
  at: string,
  discovered: Discovered[] = [],
  events?: JobEventBuilder,
): Promise<boolean> {
  return (await finishItems(db, [{ item, page, failed, discovered }], at, events))[0];
}

/**
 * Retention: removes up to `batch` rows (events, pages, then items, then the job itself) of one job that
 * ended before `cut`. Returns the rows removed (0: nothing left to prune). Batched so a
 * 100,000-page job never makes one long statement.
 */
export async function pruneEndedJob(db: Db, cut: string, batch: number): Promise<number> {
  const job = await db
    .selectFrom('jobs')
    .select('id')
    .where('state', 'in', ['completed', 'failed', 'cancelled'])
    .where('finished_at', '<', cut)
    .orderBy('finished_at')
    .limit(1)
    .executeTakeFirst();
  if (!job) return 0;
  const events = await db.selectFrom('job_events').select('id').where('job_id', '=', job.id).limit(batch).execute();
  if (events.length) {
    const r = await db
      .deleteFrom('job_events')
      .where(
        'id',
        'in',
        events.map((e) => e.id),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
  const pages = await db
    .selectFrom('job_pages')
    .select('n')
    .where('job_id', '=', job.id)
    .orderBy('n')
    .limit(batch)
    .execute();
  if (pages.length) {
    const r = await db
      .deleteFrom('job_pages')
      .where('job_id', '=', job.id)
      .where(
        'n',
        'in',
        pages.map((p) => p.n),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
  const items = await db
    .selectFrom('job_items')
    .select('seq')
    .where('job_id', '=', job.id)
    .orderBy('seq')
    .limit(batch)
    .execute();
  if (items.length) {
    const r = await db
      .deleteFrom('job_items')
      .where('job_id', '=', job.id)
      .where(
        'seq',
        'in',
        items.map((i) => i.seq),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
  const r = await db.deleteFrom('jobs').where('id', '=', job.id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * Takes items a worker took from the queue (pages taken within a moment of each other, in one
 * statement): each lease moves on when the item is still this claim's (running, same attempt;
 * claimed again or cancelled meanwhile, it is not). The keys (`job_id-seq`) of those taken.
 */
export async function takeItems(
  db: Db,
  items: { job_id: string; seq: number; attempts: number }[],
  until: string,
): Promise<Set<string>> {
  const rows = await db
    .updateTable('job_items')
    .set({ lease_until: until })
    .where('state', '=', 'running')
    .where((eb) =>
      eb.or(
        items.map((it) =>
          eb.and([eb('job_id', '=', it.job_id), eb('seq', '=', it.seq), eb('attempts', '=', it.attempts)]),
        ),
      ),
    )
    .returning(['job_id', 'seq'])
    .execute();
  return new Set(rows.map((r) => `${r.job_id}-${r.seq}`));
}

/** Moves the leases of the items this process holds on (it is alive): a dead process's items come back within one lease. */
export async function renewItems(
  db: Db,
  items: { job_id: string; seq: number; attempts: number }[],
  until: string,
): Promise<void> {
  for (let i = 0; i < items.length; i += 200) {
    const part = items.slice(i, i + 200);
    await db
      .updateTable('job_items')
      .set({ lease_until: until })
      .where('state', '=', 'running')
      .where((eb) =>
        eb.or(
          part.map((it) =>
            eb.and([eb('job_id', '=', it.job_id), eb('seq', '=', it.seq), eb('attempts', '=', it.attempts)]),
          ),
        ),
      )
      .execute();
  }
}
