/**
 * The outbox: events written with the run that found them, one delivery per event, and one
 * row per attempt. A delivery is claimed for an attempt with a conditional UPDATE on its state
 * and attempt count, so two workers never make the same attempt.
 */
import { PostgresAdapter, sql } from 'kysely';
import type { DeliveryAttempt, WebhookDelivery } from '../tables.js';
import type { Db } from './accounts.js';
import { newId } from '../ids.js';
import { fairClaim } from './fair-claim.js';

export const getDelivery = (db: Db, id: string): Promise<WebhookDelivery | undefined> =>
  db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();

/** A monitor's deliveries newest first (or the one `deliveryId`), with their event bodies. */
export function listDeliveries(db: Db, monitorId: string, limit: number, deliveryId?: string) {
  let q = db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
    .selectAll('webhook_deliveries')
    .select('webhook_events.body')
    .where('webhook_deliveries.monitor_id', '=', monitorId);
  if (deliveryId) q = q.where('webhook_deliveries.id', '=', deliveryId);
  return q
    .orderBy('webhook_deliveries.created_at', 'desc')
    .orderBy('webhook_deliveries.id', 'desc')
    .limit(limit)
    .execute();
}

export const attemptsOf = (db: Db, deliveryIds: string[]): Promise<DeliveryAttempt[]> =>
  deliveryIds.length
    ? db
        .selectFrom('delivery_attempts')
        .selectAll()
        .where('delivery_id', 'in', deliveryIds)
        .orderBy('attempt')
        .orderBy('id')
        .execute()
    : Promise.resolve([]);

/**
 * The relay's claim: pending deliveries whose next attempt is due and which no relay handed to the
 * queue in the last `handMs` (id, attempts). Claimed rows are marked handed, so a batch the queue
 * lost (or a worker never took) rotates out and others get their turn; past `handMs` they are
 * handed again. Racing relays on PostgreSQL skip each other's rows.
 *
 * Fair between accounts: an account has at most `accountCap` deliveries in flight (being sent, or
 * handed and not yet taken), so one account's backlog to a slow or hanging receiver cannot fill
 * the delivery lanes while another account's deliveries wait behind it.
 */
export async function handDueDeliveries(
  db: Db,
  now: Date,
  limit: number,
  handMs: number,
  accountCap = Infinity,
): Promise<{ id: string; attempts: number }[]> {
  const nowIso = now.toISOString();
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (!Number.isFinite(accountCap)) {
    let pick = dueUnhanded(db, nowIso).select('id').limit(limit);
    if (postgres) pick = pick.forUpdate().skipLocked();
    return db
      .updateTable('webhook_deliveries')
      .set({ handed_until: new Date(now.getTime() + handMs).toISOString() })
      .where('id', 'in', pick)
      .returning(['id', 'attempts'])
      .execute();
  }
  return db.transaction().execute(async (trx) => {
    const open = new Map((await inFlight(trx, nowIso)).map((r) => [r.account_id, Number(r.n)]));
    const picked = (
      await fairClaim({
        open,
        cap: accountCap,
        limit,
        search: (exclude, asked) => {
          let q = dueUnhanded(trx, nowIso).select(['id', 'account_id']).limit(asked);
          if (exclude.accounts.length) q = q.where('account_id', 'not in', exclude.accounts);
          if (exclude.ids.length) q = q.where('id', 'not in', exclude.ids);
          if (postgres) q = q.forUpdate().skipLocked();
          return q.execute();
        },
      })
    ).map((d) => d.id);
    if (!picked.length) return [];
    return trx
      .updateTable('webhook_deliveries')
      .set({ handed_until: new Date(now.getTime() + handMs).toISOString() })
      .where('id', 'in', picked)
      .returning(['id', 'attempts'])
      .execute();
  });
}

const dueUnhanded = (db: Db, nowIso: string) =>
  db
    .selectFrom('webhook_deliveries')
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', nowIso)
    .where((eb) => eb.or([eb('handed_until', 'is', null), eb('handed_until', '<', nowIso)]))
    .orderBy('next_attempt_at');

/** Deliveries in flight per account: being sent, or handed to the queue and not yet taken. */
const inFlight = (db: Db, nowIso: string) =>
  db
    .selectFrom('webhook_deliveries')
    .select(['account_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where((eb) =>
      eb.or([eb('state', '=', 'sending'), eb.and([eb('state', '=', 'pending'), eb('handed_until', '>=', nowIso)])]),
    )
    .groupBy('account_id')
    .execute();

/** Deliveries the queue refused: no longer handed, so the next pass takes them again. */
export async function releaseHanded(db: Db, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await db.updateTable('webhook_deliveries').set({ handed_until: null }).where('id', 'in', ids).execute();
}

/** Deliveries left in `sending` by a process that died (past their lease, or all of them). */
export async function staleSending(db: Db, now: Date, all = false): Promise<WebhookDelivery[]> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('state', '=', 'sending');
  if (!all) q = q.where('lease_until', '<', now.toISOString());
  return q.limit(1000).execute();
}

/** The earliest time something is due (a monitor run or a delivery attempt), for the scheduler's sleep. */
export async function nextDueAt(db: Db): Promise<string | undefined> {
  const [m, d] = await Promise.all([
    db
      .selectFrom('monitors')
      .select((eb) => eb.fn.min('next_run_at').as('t'))
      .where('state', '=', 'active')
      .executeTakeFirst(),
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.min('next_attempt_at').as('t'))
      .where('state', '=', 'pending')
      .executeTakeFirst(),
  ]);
  const times = [m?.t, d?.t].filter((t): t is string => typeof t === 'string');
  return times.sort()[0];
}

/** What one attempt needs, read at attempt time: the stored body, the monitor's current webhook, the account's secrets. */
export const deliveryTarget = (db: Db, eventId: string) =>
  db
    .selectFrom('webhook_events')
    .innerJoin('monitors', 'monitors.id', 'webhook_events.monitor_id')
    .innerJoin('accounts', 'accounts.id', 'webhook_events.account_id')
    .select([
      'webhook_events.body',
      'monitors.webhook as url',
      'monitors.webhook_state',
      'monitors.webhook_disabled_reason',
      'accounts.signing_secret',
      'accounts.previous_signing_secret',
      'accounts.previous_secret_expires_at',
    ])
    .where('webhook_events.id', '=', eventId)
    .executeTakeFirst();
export type DeliveryTarget = NonNullable<Awaited<ReturnType<typeof deliveryTarget>>>;

/** How early (by this process's clock) an attempt may be claimed: the error of a clock estimate, not a schedule step. */
export const CLAIM_SLACK_MS = 1000;

export type Claim =
  | { kind: 'attempt'; attemptId: number; delivery: WebhookDelivery; target: DeliveryTarget }
  /** Failed without an attempt: the event is gone, or the monitor's webhook is disabled. */
  | { kind: 'not_sent'; reason: string }
  /** Not now: its account already has `accountCap` deliveries being sent; released to the relay, which hands it out when there is room. */
  | { kind: 'busy' };

/**
 * Claims attempt `attempts + 1` of a pending, due delivery (conditional UPDATE on state and
 * count: two workers never make the same attempt) and logs it with the URL it goes to — the
 * monitor's webhook now, not when the event was written. Undefined when it is not ours.
 */
export async function claimAttempt(
  db: Db,
  deliveryId: string,
  attempts: number,
  now: Date,
  leaseMs: number,
  accountCap = Infinity,
): Promise<Claim | undefined> {
  const nowIso = now.toISOString();
  // Due by this process's estimate of the database clock, give or take its error: a delivery
  // handed over the moment another process wrote it is not refused (and left for the relay's
  // next hand-out a minute later) because the two estimates differ by a few milliseconds.
  const dueBy = new Date(now.getTime() + CLAIM_SLACK_MS).toISOString();
  const cap = Number.isFinite(accountCap) ? accountCap : null;
  // PostgreSQL, the hot path of scale-out: claimed, logged and read in one statement.
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const fast = await claimAttemptInOneStatement(
      db,
      deliveryId,
      attempts,
      nowIso,
      dueBy,
      new Date(now.getTime() + leaseMs).toISOString(),
      cap,
    );
    if (fast !== 'other') return fast;
  }
  const claim = await db.transaction().execute(async (trx) => {
    let q = trx
      .updateTable('webhook_deliveries')
      .set({ state: 'sending', lease_until: new Date(now.getTime() + leaseMs).toISOString(), updated_at: nowIso })
      .where('id', '=', deliveryId)
      .where('state', '=', 'pending')
      .where('attempts', '=', attempts)
      .where('next_attempt_at', '<=', dueBy);
    if (cap !== null) {
      q = q.where((eb) =>
        eb(
          eb
            .selectFrom('webhook_deliveries as s')
            .select((e) => e.fn.countAll<number>().as('n'))
            .whereRef('s.account_id', '=', 'webhook_deliveries.account_id')
            .where('s.state', '=', 'sending'),
          '<',
          cap,
        ),
      );
    }
    const d = await q.returningAll().executeTakeFirst();
    if (!d) return undefined;
    const target = await deliveryTarget(trx, d.event_id);
    if (!target || target.webhook_state === 'disabled') {
      const reason = !target
        ? 'not sent: the event is gone'
        : `not sent: the monitor's webhook is disabled (${target.webhook_disabled_reason ?? 'by its owner'}); re-enable it, then replay`;
      // Logged and counted as an attempt: the next hand-out of this delivery (a replay) is a new attempt number.
      await trx
        .insertInto('delivery_attempts')
        .values({
          delivery_id: deliveryId,
          attempt: attempts + 1,
          manual: 0,
          outcome: 'failed',
          started_at: nowIso,
          finished_at: nowIso,
          error: reason,
          duration_ms: 0,
          url: target?.url ?? null,
        })
        .execute();
      await trx
        .updateTable('webhook_deliveries')
        .set({
          state: 'failed',
          attempts: attempts + 1,
          next_attempt_at: null,
          lease_until: null,
          last_status: null,
          last_error: reason,
          updated_at: nowIso,
        })
        .where('id', '=', deliveryId)
        .execute();
      return { kind: 'not_sent' as const, reason };
    }
    const row = await trx
      .insertInto('delivery_attempts')
      .values({
        delivery_id: deliveryId,
        attempt: attempts + 1,
        manual: 0,
        outcome: 'sending',
        started_at: nowIso,
        url: target.url,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (d.url !== target.url)
      await trx.updateTable('webhook_deliveries').set({ url: target.url }).where('id', '=', deliveryId).execute();
    return { kind: 'attempt' as const, attemptId: Number(row.id), delivery: { ...d, url: target.url }, target };
  });
  if (claim || cap === null) return claim;
  // Not claimed: if only for the account's cap, hand it back to the relay now (not after its hand-out window).
  const r = await db
    .updateTable('webhook_deliveries')
    .set({ handed_until: null })
    .where('id', '=', deliveryId)
    .where('state', '=', 'pending')
    .where('attempts', '=', attempts)
    .where('next_attempt_at', '<=', dueBy)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) ? { kind: 'busy' } : undefined;
}

type Target = DeliveryTarget & { webhook_state: string };

/**
 * One statement: the delivery moves to `sending` (and to the monitor's current URL), the attempt
 * row is written, and what the attempt needs is read. 'other' when the claim succeeded but there
 * is nothing to send (event gone, webhook disabled) — or nothing was claimed: the general path
 * then decides (it finds the delivery already claimed by this call and takes the first case).
 */
async function claimAttemptInOneStatement(
  db: Db,
  deliveryId: string,
  attempts: number,
  nowIso: string,
  dueBy: string,
  lease: string,
  cap: number | null,
): Promise<Claim | undefined | 'other'> {
  const { rows } = await sql<{ delivery: WebhookDelivery; target: Target | null; attempt_id: number | null }>`
    WITH t AS (
      SELECT e.body, m.webhook AS url, m.webhook_state, m.webhook_disabled_reason, a.signing_secret, a.previous_signing_secret, a.previous_secret_expires_at
      FROM webhook_deliveries w JOIN webhook_events e ON e.id = w.event_id JOIN monitors m ON m.id = e.monitor_id JOIN accounts a ON a.id = e.account_id
      WHERE w.id = ${deliveryId} AND m.webhook_state <> 'disabled'
    ), d AS (
      UPDATE webhook_deliveries SET state = 'sending', lease_until = ${lease}, updated_at = ${nowIso}, url = (SELECT url FROM t)
      WHERE id = ${deliveryId} AND state = 'pending' AND attempts = ${attempts} AND next_attempt_at <= ${dueBy} AND EXISTS (SELECT 1 FROM t)
        AND (${cap}::int IS NULL OR (SELECT count(*) FROM webhook_deliveries s WHERE s.account_id = webhook_deliveries.account_id AND s.state = 'sending') < ${cap}::int)
      RETURNING *
    ), att AS (
      INSERT INTO delivery_attempts (delivery_id, attempt, manual, outcome, started_at, url)
      SELECT d.id, d.attempts + 1, 0, 'sending', ${nowIso}, d.url FROM d
      RETURNING id
    )
    SELECT row_to_json(d.*) AS delivery, (SELECT row_to_json(t.*) FROM t) AS target, (SELECT id FROM att) AS attempt_id FROM d`.execute(
    db,
  );
  const row = rows[0];
  if (!row) return 'other';
  return { kind: 'attempt', attemptId: Number(row.attempt_id), delivery: row.delivery, target: row.target! };
}

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** How a finished attempt changes its monitor's webhook: a 2xx clears the failing streak, a failure extends it, 410 disables. */
export interface WebhookHealth {
  monitorId: string;
  /** When the attempt started (a streak's first failure). */
  attemptAt: string;
  gone: boolean;
  /** A streak that began at or before this disables the webhook. */
  disableIfFailingSince: string;
}

/** Ends a claimed attempt: its log row, the delivery's next state, and the monitor's webhook health, in one transaction. */
export async function finishAttempt(
  db: Db,
  a: {
    deliveryId: string;
    attempts: number;
    attemptId: number;
    sent: AttemptResult;
    finishedAt: string;
    state: 'pending' | 'succeeded' | 'failed';
    nextAttemptAt: string | null;
  },
  health: WebhookHealth,
): Promise<void> {
  const { sent } = a;
  if (sent.ok && db.getExecutor().adapter instanceof PostgresAdapter) {
    // A success on PostgreSQL (the common case): the log row, the monitor's streak and the delivery in one statement.
    await sql`
      WITH a AS (
        UPDATE delivery_attempts SET outcome = 'succeeded', finished_at = ${a.finishedAt}, status_code = ${sent.status}, error = ${sent.error}, duration_ms = ${sent.durationMs}
        WHERE id = ${a.attemptId} RETURNING 1
      ), m AS (
        UPDATE monitors SET webhook_failing_since = NULL WHERE id = ${health.monitorId} AND webhook_failing_since IS NOT NULL RETURNING 1
      )
      UPDATE webhook_deliveries SET state = 'succeeded', attempts = ${a.attempts + 1}, next_attempt_at = NULL, lease_until = NULL, handed_until = NULL,
        last_status = ${sent.status}, last_error = ${sent.error}, updated_at = ${a.finishedAt}
      WHERE id = ${a.deliveryId} AND state = 'sending' AND attempts = ${a.attempts}`.execute(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('delivery_attempts')
      .set({
        outcome: sent.ok ? 'succeeded' : 'failed',
        finished_at: a.finishedAt,
        status_code: sent.status,
        error: sent.error,
        duration_ms: sent.durationMs,
      })
      .where('id', '=', a.attemptId)
      .execute();
    // The monitor first (its other pending deliveries fail if this attempt disables the webhook), then this delivery.
    const disabled = await recordWebhookHealth(trx, sent.ok, health, a.finishedAt);
    await trx
      .updateTable('webhook_deliveries')
      // handed_until cleared: the next attempt is a new hand-out for the relay.
      .set({
        state: disabled ? 'failed' : a.state,
        attempts: a.attempts + 1,
        next_attempt_at: disabled ? null : a.nextAttemptAt,
        lease_until: null,
        handed_until: null,
        last_status: sent.status,
        last_error: sent.error,
        updated_at: a.finishedAt,
      })
      .where('id', '=', a.deliveryId)
      .where('state', '=', 'sending')
      .where('attempts', '=', a.attempts)
      .execute();
  });
}

/** Returns whether this attempt disabled the webhook. */
async function recordWebhookHealth(trx: Db, ok: boolean, h: WebhookHealth, at: string): Promise<boolean> {
  if (ok) {
    await trx
      .updateTable('monitors')
      .set({ webhook_failing_since: null })
      .where('id', '=', h.monitorId)
      .where('webhook_failing_since', 'is not', null)
      .execute();
    return false;
  }
  if (h.gone) {
    await disableWebhook(trx, h.monitorId, `the receiver answered 410 Gone at ${at}`, at);
    return true;
  }
  const m = await trx
    .updateTable('monitors')
    .set((eb) => ({ webhook_failing_since: eb.fn.coalesce('webhook_failing_since', eb.val(h.attemptAt)) }))
    .where('id', '=', h.monitorId)
    .returning(['webhook_failing_since', 'webhook_state'])
    .executeTakeFirst();
  if (m?.webhook_state === 'active' && m.webhook_failing_since && m.webhook_failing_since <= h.disableIfFailingSince) {
    await disableWebhook(trx, h.monitorId, `no 2xx answer since ${m.webhook_failing_since}`, at);
    return true;
  }
  return false;
}

/**
 * Stops sending for a monitor: its webhook is disabled and its pending deliveries fail now (they
 * stay stored; `POST /v1/webhooks/replay` sends them again once the webhook is re-enabled).
 */
export async function disableWebhook(trx: Db, monitorId: string, reason: string, at: string): Promise<void> {
  await trx
    .updateTable('monitors')
    .set({ webhook_state: 'disabled', webhook_disabled_at: at, webhook_disabled_reason: reason })
    .where('id', '=', monitorId)
    .where('webhook_state', '=', 'active')
    .execute();
  // Each is logged as a last, unsent attempt: attempt numbers stay unique, so a replay's hand-out
  // (queue job id: delivery id + attempt) is never mistaken for one already handed out.
  const error = `not sent: the monitor's webhook was disabled (${reason})`;
  const pending = await trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'attempts'])
    .where('monitor_id', '=', monitorId)
    .where('state', '=', 'pending')
    .execute();
  for (const d of pending) {
    const r = await trx
      .updateTable('webhook_deliveries')
      .set({ state: 'failed', attempts: d.attempts + 1, next_attempt_at: null, last_error: error, updated_at: at })
      .where('id', '=', d.id)
      .where('state', '=', 'pending')
      .where('attempts', '=', d.attempts)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) continue;
    await trx
      .insertInto('delivery_attempts')
      .values({
        delivery_id: d.id,
        attempt: d.attempts + 1,
        manual: 0,
        outcome: 'failed',
        started_at: at,
        finished_at: at,
        error,
        duration_ms: 0,
      })
      .execute();
  }
}

/** A manual attempt (redeliver): logged first, outside the automatic schedule. */
export async function startManualAttempt(db: Db, deliveryId: string, url: string, at: string): Promise<number> {
  const last = await db
    .selectFrom('delivery_attempts')
    .select((eb) => eb.fn.max('attempt').as('n'))
    .where('delivery_id', '=', deliveryId)
    .executeTakeFirst();
  const row = await db
    .insertInto('delivery_attempts')
    .values({
      delivery_id: deliveryId,
      attempt: Number(last?.n ?? 0) + 1,
      manual: 1,
      outcome: 'sending',
      started_at: at,
      url,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Ends a manual attempt: a success ends pending retries (and the failing streak); a failure leaves the schedule as it was. */
export async function finishManualAttempt(
  db: Db,
  d: { id: string; monitorId: string },
  attemptId: number,
  sent: AttemptResult,
  at: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('delivery_attempts')
      .set({
        outcome: sent.ok ? 'succeeded' : 'failed',
        finished_at: at,
        status_code: sent.status,
        error: sent.error,
        duration_ms: sent.durationMs,
      })
      .where('id', '=', attemptId)
      .execute();
    const update = trx.updateTable('webhook_deliveries').where('id', '=', d.id);
    if (sent.ok) {
      await update
        .set({ state: 'succeeded', next_attempt_at: null, last_status: sent.status, last_error: null, updated_at: at })
        .where('state', 'in', ['pending', 'failed'])
        .execute();
      await trx
        .updateTable('monitors')
        .set({ webhook_failing_since: null })
        .where('id', '=', d.monitorId)
        .where('webhook_failing_since', 'is not', null)
        .execute();
    } else {
      await update
        .set({ last_status: sent.status, last_error: sent.error, updated_at: at })
        .where('state', '<>', 'sending')
        .execute();
    }
  });
}

/**
 * A delivery whose sender died mid-attempt: the attempt counts as failed (`interrupted`) and the
 * next is scheduled (or the delivery fails when its schedule is spent). False when it was not stale any more.
 */
export async function interruptAttempt(
  db: Db,
  d: WebhookDelivery,
  next: { state: 'pending' | 'failed'; nextAttemptAt: string | null },
  at: string,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const r = await trx
      .updateTable('webhook_deliveries')
      .set({
        state: next.state,
        attempts: d.attempts + 1,
        next_attempt_at: next.nextAttemptAt,
        lease_until: null,
        handed_until: null,
        last_status: null,
        last_error: 'interrupted: the process sending it stopped; outcome unknown',
        updated_at: at,
      })
      .where('id', '=', d.id)
      .where('state', '=', 'sending')
      .where('attempts', '=', d.attempts)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return false;
    await trx
      .updateTable('delivery_attempts')
      .set({ outcome: 'interrupted', finished_at: at, error: 'the process sending it stopped; outcome unknown' })
      .where('delivery_id', '=', d.id)
      .where('outcome', '=', 'sending')
      .where('manual', '=', 0)
      .execute();
    return true;
  });
}

/**
 * Replay: an account's failed deliveries created at or after `since` (one monitor's, or all)
 * become pending and due now, each with a fresh schedule; the scheduler sends them. Deliveries of
 * a monitor whose webhook is disabled stay as they are. Returns how many were scheduled.
 */
export async function replayFailed(
  db: Db,
  accountId: string,
  since: string,
  now: Date,
  monitorId?: string,
): Promise<number> {
  const nowIso = now.toISOString();
  let q = db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      state: 'pending',
      next_attempt_at: nowIso,
      schedule_offset: eb.ref('attempts'),
      handed_until: null,
      updated_at: nowIso,
    }))
    .where('account_id', '=', accountId)
    .where('state', '=', 'failed')
    .where('created_at', '>=', since)
    .where('monitor_id', 'in', (eb) => {
      let m = eb
        .selectFrom('monitors')
        .select('id')
        .where('account_id', '=', accountId)
        .where('webhook_state', '=', 'active');
      if (monitorId) m = m.where('id', '=', monitorId);
      return m;
    });
  if (monitorId) q = q.where('monitor_id', '=', monitorId);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Writes one event of a monitor and its first delivery (the outbox), inside the caller's
 * transaction: the monitor's event counter moves on in the same statement that reads the
 * webhook (on PostgreSQL it also locks the monitor row), so `sequence` has no gaps or repeats.
 */
export async function writeEvent(
  trx: Db,
  e: { monitorId: string; accountId: string; runId: string; at: string; handedUntil?: string | null },
  build: (sequence: number, url: string) => { id: string; body: string },
): Promise<{ eventId: string; deliveryId: string } | undefined> {
  const m = await trx
    .updateTable('monitors')
    .set((eb) => ({ event_sequence: eb('event_sequence', '+', 1) }))
    .where('id', '=', e.monitorId)
    .returning(['event_sequence', 'url', 'webhook'])
    .executeTakeFirst();
  if (!m) return undefined;
  const { id, body } = build(Number(m.event_sequence), m.url);
  await trx
    .insertInto('webhook_events')
    .values({ id, monitor_id: e.monitorId, account_id: e.accountId, run_id: e.runId, body, created_at: e.at })
    .execute();
  const deliveryId = newId('dlv');
  await trx
    .insertInto('webhook_deliveries')
    .values({
      id: deliveryId,
      event_id: id,
      monitor_id: e.monitorId,
      account_id: e.accountId,
      url: m.webhook,
      state: 'pending',
      attempts: 0,
      next_attempt_at: e.at,
      handed_until: e.handedUntil ?? null,
      created_at: e.at,
      updated_at: e.at,
    })
    .execute();
  return { eventId: id, deliveryId };
}
