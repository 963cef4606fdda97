/**
 * Claims of a job's items (the frontier's hand-out): due items, fair between accounts and between
 * an account's jobs, under each account's cap across every process, with leases a worker moves on
 * while it holds them (a dead worker's items come back within one lease).
 */
import { sql } from 'kysely';
import type { Db } from '../accounts.js';
import { postgres } from './common.js';

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
