/**
 * The jobs' outbox: `job.page` and `job.completed` events, written in the transaction that made
 * them (./jobs.ts), then claimed for an attempt with a conditional UPDATE (two processes never
 * make the same attempt; on PostgreSQL racing claimers skip each other's rows), sent, and
 * finished. An attempt whose sender died passes its lease and is claimed again as the next one.
 */
import { PostgresAdapter, type ExpressionBuilder } from 'kysely';
import type { Database, JobEvent, JobEventsTable } from '../tables.js';
import type { Db } from './accounts.js';
import { fairClaim } from './fair-claim.js';

export interface NewJobEvent {
  id: string;
  event: JobEvent['event'];
  body: string;
  headers?: Record<string, string>;
}

/** Writes events of a job (in the caller's transaction), due now. */
export async function insertEvents(
  trx: Db,
  job: { id: string; account_id: string },
  events: NewJobEvent[],
  at: string,
): Promise<void> {
  if (!events.length) return;
  await trx
    .insertInto('job_events')
    .values(
      events.map((e) => ({
        id: e.id,
        job_id: job.id,
        account_id: job.account_id,
        event: e.event,
        body: e.body,
        headers: e.headers ? JSON.stringify(e.headers) : null,
        state: 'pending' as const,
        next_attempt_at: at,
        lease_until: null,
        last_status: null,
        last_error: null,
        created_at: at,
        updated_at: at,
      })),
    )
    .execute();
}

/** A claimed event: its row's content, its attempts, and where and how it is sent. */
export interface ClaimedEvent extends Pick<
  JobEventsTable,
  'id' | 'job_id' | 'account_id' | 'event' | 'body' | 'headers'
> {
  /** Attempts including this one. */
  attempts: number;
  /** Attempts made before the last replay (the retry schedule starts again after them). */
  schedule_offset: number;
  url: string | null;
  signing_secret: string;
  previous_signing_secret: string | null;
  previous_secret_expires_at: string | null;
}

/**
 * A job's events go in phases: its start (a Firecrawl `…started`) first, then its pages (in any
 * order), its end (job.completed, …completed, …failed) last — each after the earlier phases'
 * events were delivered or given up.
 */
const inPhase = (eb: ExpressionBuilder<Database, 'job_events'>) => {
  const open = (like: string[]) =>
    eb.exists(
      eb
        .selectFrom('job_events as p')
        .select('p.id')
        .whereRef('p.job_id', '=', 'job_events.job_id')
        .where('p.state', 'in', ['pending', 'sending'])
        .where((x) => x.or(like.map((l) => x('p.event', 'like', l)))),
    );
  const end = eb.or([eb('event', 'like', '%.completed'), eb('event', 'like', '%.failed')]);
  return eb.or([
    eb.and([eb('event', 'like', '%.page'), eb.not(open(['%.started']))]),
    eb.and([end, eb.not(open(['%.started', '%.page']))]),
    eb.and([eb('event', 'not like', '%.page'), eb.not(end)]),
  ]);
};

/**
 * Claims up to `limit` due events (pending and due, or sending past their lease). An account has
 * at most `perAccount` attempts in flight across every process (counted from the events being
 * sent), and accounts at that cap are left out of the search, so one account's backlog to a slow
 * or hanging receiver neither holds the lanes nor hides other accounts' events behind it. A job's
 * page events may arrive in any order (their `sequence` orders them); its end arrives after all
 * of them, and a Firecrawl `…started` before any.
 */
export async function claimDue(
  db: Db,
  now: Date,
  limit: number,
  perAccount: number,
  leaseMs: number,
): Promise<ClaimedEvent[]> {
  const nowIso = now.toISOString();
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return db.transaction().execute(async (trx) => {
    const open = new Map(
      (
        await trx
          .selectFrom('job_events')
          .select(['account_id', (eb) => eb.fn.countAll<number>().as('n')])
          .where('state', '=', 'sending')
          .where('lease_until', '>=', nowIso)
          .groupBy('account_id')
          .execute()
      ).map((r) => [r.account_id, Number(r.n)]),
    );
    const picked = (
      await fairClaim({
        open,
        cap: perAccount,
        limit,
        askFactor: 4,
        search: (exclude, asked) => {
          let q = trx
            .selectFrom('job_events')
            .select(['id', 'account_id'])
            .where((eb) =>
              eb.or([
                eb.and([eb('state', '=', 'pending'), eb('next_attempt_at', '<=', nowIso)]),
                eb.and([eb('state', '=', 'sending'), eb('lease_until', '<', nowIso)]),
              ]),
            )
            .where(inPhase)
            .orderBy('next_attempt_at')
            .limit(asked);
          if (exclude.accounts.length) q = q.where('account_id', 'not in', exclude.accounts);
          if (exclude.ids.length) q = q.where('id', 'not in', exclude.ids);
          if (postgres) q = q.forUpdate().skipLocked();
          return q.execute();
        },
      })
    ).map((d) => d.id);
    if (!picked.length) return [];
    await trx
      .updateTable('job_events')
      .set((eb) => ({
        state: 'sending',
        lease_until: new Date(now.getTime() + leaseMs).toISOString(),
        attempts: eb('attempts', '+', 1),
        updated_at: nowIso,
      }))
      .where('id', 'in', picked)
      .execute();
    const rows = await trx
      .selectFrom('job_events')
      .innerJoin('jobs', 'jobs.id', 'job_events.job_id')
      .innerJoin('accounts', 'accounts.id', 'job_events.account_id')
      .select([
        'job_events.id',
        'job_events.job_id',
        'job_events.account_id',
        'job_events.event',
        'job_events.body',
        'job_events.headers',
        'job_events.attempts',
        'job_events.schedule_offset',
        'jobs.webhook as url',
        'accounts.signing_secret',
        'accounts.previous_signing_secret',
        'accounts.previous_secret_expires_at',
      ])
      .where('job_events.id', 'in', picked)
      .execute();
    return rows.map((r) => ({ ...r, attempts: Number(r.attempts), schedule_offset: Number(r.schedule_offset) }));
  });
}

/** Ends a claimed attempt (only if it is still this claim's): sent, to try again at `nextAttemptAt`, or given up. */
export async function finishAttempt(
  db: Db,
  e: { id: string; attempts: number },
  outcome: {
    state: 'succeeded' | 'pending' | 'failed';
    status: number | null;
    error: string | null;
    nextAttemptAt: string | null;
  },
  at: string,
): Promise<void> {
  await db
    .updateTable('job_events')
    .set({
      state: outcome.state,
      next_attempt_at: outcome.nextAttemptAt,
      lease_until: null,
      last_status: outcome.status,
      last_error: outcome.error,
      updated_at: at,
    })
    .where('id', '=', e.id)
    .where('state', '=', 'sending')
    .where('attempts', '=', e.attempts)
    .execute();
}

/** A job's events (oldest first), for its owner and tests. */
export const eventsOf = (db: Db, jobId: string): Promise<JobEvent[]> =>
  db.selectFrom('job_events').selectAll().where('job_id', '=', jobId).orderBy('created_at').orderBy('id').execute();

/**
 * Replay: an account's failed job events created at or after `since` become
 * pending and due now, each with a fresh retry schedule (attempt numbers go on). Returns how many.
 */
export async function replayFailedEvents(db: Db, accountId: string, since: string, now: Date): Promise<number> {
  const nowIso = now.toISOString();
  const r = await db
    .updateTable('job_events')
    .set((eb) => ({
      state: 'pending',
      next_attempt_at: nowIso,
      schedule_offset: eb.ref('attempts'),
      lease_until: null,
      updated_at: nowIso,
    }))
    .where('account_id', '=', accountId)
    .where('state', '=', 'failed')
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
