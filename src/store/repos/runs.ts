/**
 * A monitor run's claim: who runs it, with its credit. On PostgreSQL the common case — a queued run
 * of an active monitor whose account has a credit, or a run taken over from a dead runner — is one
 * statement (one round trip: the scale-out hot path); everything else (a paused monitor, no
 * credits, a run held elsewhere, gone) goes through the general transaction, as on SQLite.
 */
import { PostgresAdapter, sql } from 'kysely';
import type { MonitorRun } from '../tables.js';
import type { Db } from './accounts.js';

/** The monitor as the run found it: what to fetch, and the baseline it diffs against. */
export interface RunTarget {
  url: string;
  watch: string;
  schema: string | null;
  marketplace: string | null;
  conditions: string | null;
  events: string;
  last_values: string | null;
  baseline_at: string | null;
  event_sequence: number;
  consecutive_failures: number;
  updated_at: string;
  /** How the page is fetched (actions, headers, cookies, mobile, location) as JSON, or null. */
  scrape_options: string | null;
}

const TARGET_COLUMNS = [
  'url',
  'watch',
  'schema',
  'marketplace',
  'conditions',
  'events',
  'last_values',
  'baseline_at',
  'event_sequence',
  'consecutive_failures',
  'updated_at',
  'scrape_options',
] as const;

export type RunClaim =
  | { kind: 'claimed'; run: MonitorRun; monitor: RunTarget }
  | { kind: 'skipped' }
  | { kind: 'held'; until: string }
  | { kind: 'none' };

export async function claimRun(db: Db, runId: string, now: Date, leaseMs: number): Promise<RunClaim> {
  const nowIso = now.toISOString();
  const lease = new Date(now.getTime() + leaseMs).toISOString();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const fast = await claimInOneStatement(db, runId, nowIso, lease);
    if (fast) return fast;
  }
  return claimInTransaction(db, runId, nowIso, lease);
}

type Row = MonitorRun & { m: RunTarget; fresh: number; charged: number };

async function claimInOneStatement(
  db: Db,
  runId: string,
  nowIso: string,
  lease: string,
): Promise<RunClaim | undefined> {
  const { rows } = await sql<Row>`
    WITH fresh AS (
      UPDATE monitor_runs r SET status = 'running', started_at = ${nowIso}, lease_until = ${lease}, credits = 1
      FROM monitors m, accounts a
      WHERE r.id = ${runId} AND r.status = 'queued' AND r.credits = 0 AND m.id = r.monitor_id AND a.id = r.account_id
        AND (r.trigger = 'manual' OR m.state = 'active') AND a.credits >= 1
      RETURNING r.*
    ), charged AS (
      UPDATE accounts a SET credits = a.credits - 1 FROM fresh WHERE a.id = fresh.account_id AND a.credits >= 1 RETURNING a.id
    ), takeover AS (
      UPDATE monitor_runs r SET status = 'running', started_at = ${nowIso}, lease_until = ${lease}
      WHERE r.id = ${runId} AND ((r.status = 'queued' AND r.credits = 1) OR (r.status = 'running' AND r.lease_until < ${nowIso}))
      RETURNING r.*
    ), got AS (SELECT * FROM fresh UNION ALL SELECT * FROM takeover)
    SELECT got.*, json_build_object(${sql.raw(TARGET_COLUMNS.map((c) => `'${c}', m.${c}`).join(', '))}) AS m,
      (SELECT count(*) FROM fresh)::int AS fresh, (SELECT count(*) FROM charged)::int AS charged
    FROM got JOIN monitors m ON m.id = got.monitor_id`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  const { m, fresh, charged, ...run } = row;
  if (fresh && !charged) {
    // The last credit went between the statement's check and its charge: the run is skipped.
    await db
      .updateTable('monitor_runs')
      .set({
        status: 'skipped',
        credits: 0,
        finished_at: nowIso,
        lease_until: null,
        error: 'skipped: the account has no credits left',
      })
      .where('id', '=', runId)
      .execute();
    return { kind: 'skipped' };
  }
  return {
    kind: 'claimed',
    run: run as MonitorRun,
    monitor: { ...m, event_sequence: Number(m.event_sequence), consecutive_failures: Number(m.consecutive_failures) },
  };
}

async function claimInTransaction(db: Db, runId: string, nowIso: string, lease: string): Promise<RunClaim> {
  const run = await db.transaction().execute(async (trx) => {
    const fresh = await trx
      .updateTable('monitor_runs')
      .set({ status: 'running', started_at: nowIso, lease_until: lease, credits: 1 })
      .where('id', '=', runId)
      .where('status', '=', 'queued')
      .where('credits', '=', 0)
      .returningAll()
      .executeTakeFirst();
    if (fresh) {
      const skip = async (error: string) => {
        await trx
          .updateTable('monitor_runs')
          .set({ status: 'skipped', credits: 0, finished_at: nowIso, lease_until: null, error })
          .where('id', '=', runId)
          .execute();
        await trx.updateTable('monitors').set({ last_run_at: nowIso }).where('id', '=', fresh.monitor_id).execute();
        return 'skipped' as const;
      };
      // A paused monitor runs only when asked to (run now); its queued scheduled runs stop here.
      if (fresh.trigger === 'schedule') {
        const m = await trx
          .selectFrom('monitors')
          .select('state')
          .where('id', '=', fresh.monitor_id)
          .executeTakeFirst();
        if (m?.state !== 'active') return skip('skipped: the monitor was paused');
      }
      const r = await trx
        .updateTable('accounts')
        .set((eb) => ({ credits: eb('credits', '-', 1) }))
        .where('id', '=', fresh.account_id)
        .where('credits', '>=', 1)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) return fresh;
      return skip('skipped: the account has no credits left');
    }
    // Taken over from a runner that died (requeued by the sweep, or past its lease): already charged.
    return trx
      .updateTable('monitor_runs')
      .set({ status: 'running', started_at: nowIso, lease_until: lease })
      .where('id', '=', runId)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'queued'), eb('credits', '=', 1)]),
          eb.and([eb('status', '=', 'running'), eb('lease_until', '<', nowIso)]),
        ]),
      )
      .returningAll()
      .executeTakeFirst();
  });
  if (run === 'skipped') return { kind: 'skipped' };
  if (!run) {
    const held = await db
      .selectFrom('monitor_runs')
      .select(['status', 'lease_until'])
      .where('id', '=', runId)
      .executeTakeFirst();
    return held?.status === 'running' && held.lease_until
      ? { kind: 'held', until: held.lease_until }
      : { kind: 'none' };
  }
  const m = await db
    .selectFrom('monitors')
    .select([...TARGET_COLUMNS])
    .where('id', '=', run.monitor_id)
    .executeTakeFirst();
  return m ? { kind: 'claimed', run, monitor: { ...m, event_sequence: Number(m.event_sequence) } } : { kind: 'none' }; // deleted meanwhile: its credit went back with it
}

/** A succeeded run's outcome, decided against the claim's snapshot of its monitor. */
export interface SucceededRun {
  run: MonitorRun;
  /** The snapshot the outcome was decided on (finishing checks it is still the monitor's state). */
  seen: RunTarget;
  finishedAt: string;
  statusCode: number;
  valuesJson: string;
  changesJson: string | null;
  baselineJson: string;
  /** The change.detected event to write (its body built with sequence seen.event_sequence + 1). */
  event?: { id: string; body: string; deliveryId: string; handedUntil: string | null };
  usage: { status: number; credits: number; durationMs: number };
  /** Set by the finish: the notification channels' deliveries it wrote, for the caller to hand out. */
  channelDeliveryIds?: string[];
}

/**
 * PostgreSQL's one-statement finish of a succeeded run: lock the monitor if it is still as the
 * claim saw it, end the run if it is still this runner's, move the baseline on, write the event
 * and its delivery, and the usage row. 'stale' when the monitor changed meanwhile (the caller
 * decides again in a transaction on fresh state); 'superseded' when the run is not ours any more.
 */
export async function finishSucceededInOneStatement(db: Db, f: SucceededRun): Promise<'done' | 'stale' | 'superseded'> {
  const { run, seen } = f;
  const e = f.event;
  const { rows } = await sql<{ locked: number; finished: number; channel_deliveries: string[] | null }>`
    WITH lk AS (
      SELECT id, webhook FROM monitors
      WHERE id = ${run.monitor_id} AND updated_at = ${seen.updated_at} AND baseline_at IS NOT DISTINCT FROM ${seen.baseline_at}
        AND event_sequence = ${seen.event_sequence} AND consecutive_failures = ${seen.consecutive_failures}
      FOR UPDATE
    ), r AS (
      UPDATE monitor_runs SET status = 'succeeded', finished_at = ${f.finishedAt}, lease_until = NULL, status_code = ${f.statusCode},
        values = ${f.valuesJson}, changes = ${f.changesJson}, event_id = ${e?.id ?? null}
      WHERE id = ${run.id} AND status = 'running' AND started_at = ${run.started_at} AND EXISTS (SELECT 1 FROM lk)
      RETURNING id
    ), m AS (
      UPDATE monitors SET last_values = ${f.baselineJson}, last_success_at = ${f.finishedAt}, last_run_at = ${f.finishedAt},
        baseline_at = ${run.started_at}, consecutive_failures = 0, health = 'ok', event_sequence = event_sequence + ${e ? 1 : 0}
      WHERE id = ${run.monitor_id} AND EXISTS (SELECT 1 FROM r)
      RETURNING id
    ), e AS (
      INSERT INTO webhook_events (id, monitor_id, account_id, run_id, body, created_at)
      SELECT ${e?.id ?? ''}, ${run.monitor_id}, ${run.account_id}, ${run.id}, ${e?.body ?? ''}, ${f.finishedAt}
      WHERE ${!!e}::boolean AND EXISTS (SELECT 1 FROM m)
      RETURNING id
    ), d AS (
      INSERT INTO webhook_deliveries (id, event_id, monitor_id, account_id, url, state, attempts, next_attempt_at, handed_until, created_at, updated_at)
      SELECT ${e?.deliveryId ?? ''}, e.id, ${run.monitor_id}, ${run.account_id}, (SELECT webhook FROM lk), 'pending', 0, ${f.finishedAt}, ${e?.handedUntil ?? null}, ${f.finishedAt}, ${f.finishedAt}
      FROM e
      RETURNING id
    ), c AS (
      -- One message per active channel of the monitor (the account's defaults and its own), as writeEvent does.
      INSERT INTO webhook_deliveries (id, event_id, monitor_id, account_id, url, channel_id, state, attempts, next_attempt_at, handed_until, created_at, updated_at)
      SELECT 'dlv_' || substr(md5(random()::text || ch.id), 1, 20), e.id, ${run.monitor_id}, ${run.account_id}, ch.target, ch.id, 'pending', 0, ${f.finishedAt}, ${e?.handedUntil ?? null}, ${f.finishedAt}, ${f.finishedAt}
      FROM e JOIN notification_channels ch ON ch.account_id = ${run.account_id} AND ch.state = 'active'
        AND (ch.is_default = 1 OR ch.id IN (SELECT channel_id FROM monitor_channels WHERE monitor_id = ${run.monitor_id}))
      RETURNING id
    ), u AS (
      INSERT INTO usage (account_id, key_id, endpoint, status, credits, duration_ms, request_id, created_at)
      SELECT ${run.account_id}, NULL, 'monitor run', ${f.usage.status}::int, ${f.usage.credits}::int, ${f.usage.durationMs}::int, ${run.id}, ${f.finishedAt}
      WHERE EXISTS (SELECT 1 FROM r)
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM lk)::int AS locked, (SELECT count(*) FROM r)::int AS finished, (SELECT count(*) FROM d)::int AS delivered, (SELECT count(*) FROM u)::int AS used, (SELECT array_agg(id) FROM c) AS channel_deliveries`.execute(
    db,
  );
  const row = rows[0];
  if (!row.locked) return 'stale';
  f.channelDeliveryIds = row.channel_deliveries ?? [];
  return row.finished ? 'done' : 'superseded';
}

// ---- The general (transactional) path of a run, and the run's other statements. ----

export const getRun = (db: Db, id: string): Promise<MonitorRun | undefined> =>
  db.selectFrom('monitor_runs').selectAll().where('id', '=', id).executeTakeFirst();

/** The monitor a finishing run diffs against, locked until commit on PostgreSQL. */
export function monitorForFinish(trx: Db, monitorId: string) {
  let q = trx
    .selectFrom('monitors')
    .select([
      'id',
      'url',
      'watch',
      'webhook',
      'conditions',
      'last_values',
      'consecutive_failures',
      'events',
      'baseline_at',
    ])
    .where('id', '=', monitorId);
  if (trx.getExecutor().adapter instanceof PostgresAdapter) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Ends the run if it is still this runner's (running, started when it started): false when not. */
export async function endRun(trx: Db, run: MonitorRun, patch: Partial<MonitorRun>): Promise<boolean> {
  const r = await trx
    .updateTable('monitor_runs')
    .set(patch)
    .where('id', '=', run.id)
    .where('status', '=', 'running')
    .where('started_at', '=', run.started_at)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A failed run: its credit back, the monitor's failure streak and health. */
export async function recordFailure(
  trx: Db,
  run: MonitorRun,
  failures: number,
  health: 'ok' | 'failing',
  at: string,
): Promise<void> {
  await trx
    .updateTable('accounts')
    .set((eb) => ({ credits: eb('credits', '+', run.credits) }))
    .where('id', '=', run.account_id)
    .execute();
  await trx
    .updateTable('monitors')
    .set({ last_run_at: at, consecutive_failures: failures, health })
    .where('id', '=', run.monitor_id)
    .execute();
}

/** A succeeded run's values become the monitor's baseline. */
export async function moveBaseline(trx: Db, run: MonitorRun, baselineJson: string, at: string): Promise<void> {
  await trx
    .updateTable('monitors')
    .set({
      last_values: baselineJson,
      last_success_at: at,
      last_run_at: at,
      baseline_at: run.started_at,
      consecutive_failures: 0,
      health: 'ok',
    })
    .where('id', '=', run.monitor_id)
    .execute();
}

/** Moves a running run's lease on: false when the run is no longer this runner's. */
export async function renewLease(db: Db, run: MonitorRun, until: string): Promise<boolean> {
  const r = await db
    .updateTable('monitor_runs')
    .set({ lease_until: until })
    .where('id', '=', run.id)
    .where('status', '=', 'running')
    .where('started_at', '=', run.started_at)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * A manual run, unless the monitor already has an open one (the unique index decides): the new
 * run's id, or the open run's; undefined when the open run ended between the two statements.
 */
export async function openManualRun(
  db: Db,
  monitor: { id: string; account_id: string },
  now: Date,
  leaseMs: number,
  newRunId: string,
): Promise<string | undefined> {
  const inserted = await db
    .insertInto('monitor_runs')
    .values({
      id: newRunId,
      monitor_id: monitor.id,
      account_id: monitor.account_id,
      trigger: 'manual',
      status: 'queued',
      due_at: now.toISOString(),
      lease_until: new Date(now.getTime() + leaseMs).toISOString(),
      credits: 0,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return inserted.id;
  const open = await db
    .selectFrom('monitor_runs')
    .select('id')
    .where('monitor_id', '=', monitor.id)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirst();
  return open?.id;
}

/** A monitor's newest run. */
export const latestRun = (db: Db, monitorId: string): Promise<MonitorRun | undefined> =>
  db
    .selectFrom('monitor_runs')
    .selectAll()
    .where('monitor_id', '=', monitorId)
    .orderBy('due_at', 'desc')
    .executeTakeFirst();
