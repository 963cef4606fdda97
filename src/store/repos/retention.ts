/**
 * The pruner's statements (issue 27, point 6). Each call handles at most `limit` rows in one short
 * transaction, so no statement holds locks for long; the caller loops. Rows are picked first
 * (FOR UPDATE SKIP LOCKED on PostgreSQL), then deleted by id with DELETE … RETURNING, so what is
 * summed is exactly what was deleted: several pruners on one database share the work and never
 * count a row twice. (Picking and deleting in two statements also keeps PostgreSQL from running
 * the pick once per candidate row in a semi-join when its statistics are stale.)
 */
import { PostgresAdapter, sql, type ExpressionBuilder } from 'kysely';
import type { Database, MonitorRunsTable, UsageHourlyTable } from '../tables.js';
import type { Db } from './accounts.js';
import { GRACE_MS } from './snapshots.js';

const isPostgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;
const dayOf = (iso: string) => iso.slice(0, 10);
const hourOf = (iso: string) => `${iso.slice(0, 13)}:00:00.000Z`;

/** A monitor run seen as `r`, in a statement that may name the others. */
type RunAsR = ExpressionBuilder<Database & { r: MonitorRunsTable }, 'r'>;

/** Run `r` is not its monitor's latest: a run of the same monitor is due after it. */
const laterRunDue = (eb: RunAsR) =>
  eb.exists(
    eb
      .selectFrom('monitor_runs as n')
      .select('n.id')
      .whereRef('n.monitor_id', '=', 'r.monitor_id')
      .whereRef('n.due_at', '>', 'r.due_at'),
  );

/** Run `r` is not its monitor's latest successful one: a success of the same monitor finished after it. */
const laterSuccess = (eb: RunAsR) =>
  eb.exists(
    eb
      .selectFrom('monitor_runs as l')
      .select('l.id')
      .whereRef('l.monitor_id', '=', 'r.monitor_id')
      .where('l.status', '=', 'succeeded')
      .whereRef('l.finished_at', '>', 'r.finished_at'),
  );

/**
 * Unchanged successful runs (no changes) finished before `before` are deleted and counted per
 * monitor and UTC day in monitor_run_counts. Never the monitor's latest run nor its latest
 * successful one (what the baseline and the history end on). Returns the runs collapsed.
 */
export async function collapseUnchangedRuns(db: Db, before: Date, limit: number): Promise<number> {
  const pg = isPostgres(db);
  return db.transaction().execute(async (trx) => {
    let pick = trx
      .selectFrom('monitor_runs as r')
      .select('r.id')
      // By the partial index monitor_runs_unchanged: changed runs (kept a month) are not scanned every pass.
      .where('r.status', '=', 'succeeded')
      .where('r.changes', 'is', null)
      .where('r.finished_at', '<', before.toISOString())
      .where(laterSuccess)
      .where(laterRunDue)
      .limit(limit);
    if (pg) pick = pick.forUpdate().skipLocked();
    const ids = (await pick.execute()).map((r) => r.id);
    if (!ids.length) return 0;
    const gone = await trx
      .deleteFrom('monitor_runs')
      .where('id', 'in', ids)
      .where('status', '=', 'succeeded')
      .where('changes', 'is', null)
      .returning(['monitor_id', 'account_id', 'due_at', 'credits'])
      .execute();
    if (!gone.length) return 0;
    const counts = new Map<
      string,
      { monitor_id: string; account_id: string; day: string; unchanged_runs: number; credits: number }
    >();
    for (const r of gone) {
      const key = `${r.monitor_id}|${dayOf(r.due_at)}`;
      const c = counts.get(key) ?? {
        monitor_id: r.monitor_id,
        account_id: r.account_id,
        day: dayOf(r.due_at),
        unchanged_runs: 0,
        credits: 0,
      };
      c.unchanged_runs++;
      c.credits += Number(r.credits);
      counts.set(key, c);
    }
    await trx
      .insertInto('monitor_run_counts')
      .values([...counts.keys()].sort().map((k) => counts.get(k)!))
      .onConflict((oc) =>
        oc.columns(['monitor_id', 'day']).doUpdateSet((eb) => ({
          unchanged_runs: eb('monitor_run_counts.unchanged_runs', '+', eb.ref('excluded.unchanged_runs')),
          credits: eb('monitor_run_counts.credits', '+', eb.ref('excluded.credits')),
        })),
      )
      .execute();
    return gone.length;
  });
}

/**
 * Finished runs (changed, failed, skipped, or unchanged not yet collapsed) older than `before`,
 * except each monitor's latest run and latest successful run. Their snapshot references go with
 * them (ON DELETE CASCADE).
 */
export async function deleteOldRuns(db: Db, before: Date, limit: number): Promise<number> {
  const pg = isPostgres(db);
  return db.transaction().execute(async (trx) => {
    let pick = trx
      .selectFrom('monitor_runs as r')
      .select('r.id')
      // finished_at alone (by monitor_runs_finished): only finished runs have one; the DELETE checks the status.
      .where('r.finished_at', '<', before.toISOString())
      .where(laterRunDue)
      .where((eb) => eb.or([eb('r.status', '!=', 'succeeded'), laterSuccess(eb)]))
      .limit(limit);
    if (pg) pick = pick.forUpdate().skipLocked();
    const ids = (await pick.execute()).map((r) => r.id);
    if (!ids.length) return 0;
    const r = await trx
      .deleteFrom('monitor_runs')
      .where('id', 'in', ids)
      .where('status', 'in', ['succeeded', 'failed', 'skipped'])
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  });
}

/** Unchanged-run counts of days before `beforeDay` (YYYY-MM-DD), of up to `limit` monitors. */
export async function deleteOldRunCounts(db: Db, beforeDay: string, limit: number): Promise<number> {
  const monitors = (
    await db.selectFrom('monitor_run_counts').select('monitor_id').where('day', '<', beforeDay).limit(limit).execute()
  ).map((r) => r.monitor_id);
  if (!monitors.length) return 0;
  const r = await db
    .deleteFrom('monitor_run_counts')
    .where('monitor_id', 'in', [...new Set(monitors)])
    .where('day', '<', beforeDay)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * Deliveries that ended (succeeded or failed, never pending or sending) created before `before`,
 * with their attempts. Returns [deliveries, attempts] deleted.
 */
export async function deleteOldDeliveries(db: Db, before: Date, limit: number): Promise<[number, number]> {
  const pg = isPostgres(db);
  return db.transaction().execute(async (trx) => {
    let pick = trx
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('created_at', '<', before.toISOString())
      .where('state', 'in', ['succeeded', 'failed'])
      .limit(limit);
    if (pg) pick = pick.forUpdate().skipLocked();
    const ids = (await pick.execute()).map((r) => r.id);
    if (!ids.length) return [0, 0];
    const a = await trx.deleteFrom('delivery_attempts').where('delivery_id', 'in', ids).executeTakeFirst();
    const d = await trx
      .deleteFrom('webhook_deliveries')
      .where('id', 'in', ids)
      .where('state', 'in', ['succeeded', 'failed'])
      .executeTakeFirst();
    return [Number(d.numDeletedRows), Number(a.numDeletedRows)];
  });
}

/** Events created before `before` that no delivery refers to any more (so none still to send). */
export async function deleteOldEvents(db: Db, before: Date, limit: number): Promise<number> {
  const pg = isPostgres(db);
  return db.transaction().execute(async (trx) => {
    let pick = trx
      .selectFrom('webhook_events as e')
      .select('e.id')
      .where('e.created_at', '<', before.toISOString())
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id'))),
      )
      .limit(limit);
    if (pg) pick = pick.forUpdate().skipLocked();
    const ids = (await pick.execute()).map((r) => r.id);
    if (!ids.length) return 0;
    // Checked again: a delivery written for the event meanwhile (a replay) keeps it (deleting it would cascade).
    const r = await trx
      .deleteFrom('webhook_events')
      .where('id', 'in', ids)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'webhook_events.id'),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  });
}

/**
 * Usage rows created before `before` moved into usage_hourly (summed per account, key, endpoint,
 * status and UTC hour) and deleted, in one transaction. Returns the rows moved.
 */
export async function aggregateUsage(db: Db, before: Date, limit: number): Promise<number> {
  const pg = isPostgres(db);
  return db.transaction().execute(async (trx) => {
    let pick = trx.selectFrom('usage').select('id').where('created_at', '<', before.toISOString()).limit(limit);
    if (pg) pick = pick.forUpdate().skipLocked();
    const ids = (await pick.execute()).map((r) => r.id);
    if (!ids.length) return 0;
    const gone = await trx
      .deleteFrom('usage')
      .where('id', 'in', ids)
      .returning(['account_id', 'key_id', 'endpoint', 'status', 'credits', 'duration_ms', 'created_at'])
      .execute();
    if (!gone.length) return 0;
    type Row = UsageHourlyTable;
    const sums = new Map<string, Row>();
    for (const u of gone) {
      const row: Row = {
        account_id: u.account_id,
        key_id: u.key_id ?? '',
        endpoint: u.endpoint,
        status: Number(u.status),
        hour: hourOf(u.created_at),
        requests: 0,
        credits: 0,
        errors: 0,
        duration_ms: 0,
      };
      const key = JSON.stringify([row.account_id, row.hour, row.key_id, row.endpoint, row.status]);
      const s = sums.get(key) ?? (sums.set(key, row), row);
      s.requests++;
      s.credits += Number(u.credits);
      s.errors += row.status >= 400 ? 1 : 0;
      s.duration_ms += Number(u.duration_ms);
    }
    await trx
      .insertInto('usage_hourly')
      .values([...sums.keys()].sort().map((k) => sums.get(k)!))
      .onConflict((oc) =>
        oc.columns(['account_id', 'hour', 'key_id', 'endpoint', 'status']).doUpdateSet((eb) => ({
          requests: eb('usage_hourly.requests', '+', eb.ref('excluded.requests')),
          credits: eb('usage_hourly.credits', '+', eb.ref('excluded.credits')),
          errors: eb('usage_hourly.errors', '+', eb.ref('excluded.errors')),
          duration_ms: eb('usage_hourly.duration_ms', '+', eb.ref('excluded.duration_ms')),
        })),
      )
      .execute();
    return gone.length;
  });
}

/** Hourly usage of the oldest hour before `before`, if any (one hour's rows a statement). */
export async function deleteOldUsageHour(db: Db, before: Date): Promise<number> {
  const oldest = await db
    .selectFrom('usage_hourly')
    .select((eb) => eb.fn.min('hour').as('h'))
    .where('hour', '<', before.toISOString())
    .executeTakeFirst();
  if (!oldest?.h) return 0;
  const r = await db
    .deleteFrom('usage_hourly')
    .where('hour', '=', oldest.h as string)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Dashboard sessions past their expiry. */
export async function deleteExpiredSessions(db: Db, now: Date, limit: number): Promise<number> {
  const ids = (
    await db.selectFrom('sessions').select('id').where('expires_at', '<=', now.toISOString()).limit(limit).execute()
  ).map((r) => r.id);
  if (!ids.length) return 0;
  const r = await db
    .deleteFrom('sessions')
    .where('id', 'in', ids)
    .where('expires_at', '<=', now.toISOString())
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * Snapshots stored before the grace period that no run refers to, after `after` in hash order
 * (the caller pages through). Returns the candidates seen (to page on) and those deleted.
 * `baselines`: hashes monitors' last_values refer to (kept). The DELETE checks again, so a run
 * that stores a candidate meanwhile (refreshing stored_at) keeps it.
 */
export async function pruneSnapshots(
  db: Db,
  now: Date,
  after: string,
  limit: number,
  baselines: Set<string>,
): Promise<{ last?: string; seen: number; deleted: number }> {
  const grace = new Date(now.getTime() - GRACE_MS).toISOString();
  const candidates = await db
    .selectFrom('snapshots as s')
    .select('s.hash')
    .where('s.hash', '>', after)
    .where('s.stored_at', '<', grace)
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('snapshot_refs as r').select('r.hash').whereRef('r.hash', '=', 's.hash'))),
    )
    .orderBy('s.hash')
    .limit(limit)
    .execute();
  if (!candidates.length) return { seen: 0, deleted: 0 };
  const doomed = candidates.map((c) => c.hash).filter((h) => !baselines.has(h));
  let deleted = 0;
  if (doomed.length) {
    const r = await db
      .deleteFrom('snapshots')
      .where('hash', 'in', doomed)
      .where('stored_at', '<', grace)
      .where((eb) =>
        eb.not(
          eb.exists(eb.selectFrom('snapshot_refs as r').select('r.hash').whereRef('r.hash', '=', 'snapshots.hash')),
        ),
      )
      .executeTakeFirst();
    deleted = Number(r.numDeletedRows);
  }
  return { last: candidates[candidates.length - 1].hash, seen: candidates.length, deleted };
}

/** Hashes of snapshots monitors' baselines (last_values) refer to. */
export async function baselineSnapshots(db: Db): Promise<Set<string>> {
  const out = new Set<string>();
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('monitors')
      .select(['id', 'last_values'])
      .where('id', '>', after)
      .where('last_values', 'like', '%"$snapshot"%')
      .orderBy('id')
      .limit(1000)
      .execute();
    for (const r of rows)
      for (const m of (r.last_values ?? '').matchAll(/"\$snapshot":"([0-9a-f]{64})"/g)) out.add(m[1]);
    if (rows.length < 1000) return out;
    after = rows[rows.length - 1].id;
  }
}

/** Rows in the tables the pruner keeps bounded (for logs and the bench). */
export async function tableCounts(db: Db): Promise<Record<string, number>> {
  const tables = [
    'monitor_runs',
    'monitor_run_counts',
    'webhook_events',
    'webhook_deliveries',
    'delivery_attempts',
    'usage',
    'usage_hourly',
    'snapshots',
    'snapshot_refs',
  ] as const;
  const out: Record<string, number> = {};
  for (const t of tables) {
    const r = await sql<{ n: number }>`select count(*) as n from ${sql.table(t)}`.execute(db);
    out[t] = Number(r.rows[0].n);
  }
  return out;
}
