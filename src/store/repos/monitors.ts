/**
 * Monitors and their runs. Due runs are claimed with conditional UPDATEs, so any number of
 * schedulers and runners can race on one database and each due time yields one run, each run
 * one runner at a time (until its lease expires: its runner is then presumed dead).
 */
import { PostgresAdapter, sql, type Insertable, type Updateable } from 'kysely';
import type { Monitor, MonitorRun, MonitorRunsTable, MonitorsTable } from '../tables.js';
import { newId } from '../ids.js';
import type { Db } from './accounts.js';
import { expandAll, expandRows } from './snapshots.js';

export async function insertMonitor(db: Db, row: Insertable<MonitorsTable>): Promise<void> {
  await db.insertInto('monitors').values(row).execute();
}

export async function countMonitors(db: Db, accountId: string): Promise<number> {
  const r = await db
    .selectFrom('monitors')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export const getMonitor = (db: Db, accountId: string, id: string): Promise<Monitor | undefined> =>
  db.selectFrom('monitors').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();

export const getMonitorById = (db: Db, id: string): Promise<Monitor | undefined> =>
  db.selectFrom('monitors').selectAll().where('id', '=', id).executeTakeFirst();

/** Newest first; `before` is the created_at|id cursor of the last row of the previous page. */
export async function listMonitors(
  db: Db,
  accountId: string,
  limit: number,
  before?: { createdAt: string; id: string },
): Promise<Monitor[]> {
  let q = db.selectFrom('monitors').selectAll().where('account_id', '=', accountId);
  if (before) {
    q = q.where((eb) =>
      eb.or([
        eb('created_at', '<', before.createdAt),
        eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
      ]),
    );
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function updateMonitor(
  db: Db,
  accountId: string,
  id: string,
  patch: Updateable<MonitorsTable>,
): Promise<boolean> {
  const r = await db
    .updateTable('monitors')
    .set(patch)
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Deletes the monitor with its runs, and gives back the credit of any run charged but not
 * finished (its runner then finds the monitor gone and writes nothing). One transaction: the
 * UPDATE locks those runs, so a runner finishing at the same moment either ends its run first
 * (the credit stays spent, the usage row says so) or finds it gone; never both or neither.
 */
export async function deleteMonitor(db: Db, accountId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const unfinished = await trx
      .updateTable('monitor_runs')
      .set({ status: 'failed', lease_until: null, error: 'the monitor was deleted during the run' })
      .where('monitor_id', '=', id)
      .where('account_id', '=', accountId)
      .where('status', 'in', ['queued', 'running'])
      .returning('credits')
      .execute();
    const r = await trx
      .deleteFrom('monitors')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (Number(r.numDeletedRows) !== 1) return false;
    const refund = unfinished.reduce((sum, run) => sum + Number(run.credits), 0);
    if (refund > 0)
      await trx
        .updateTable('accounts')
        .set((eb) => ({ credits: eb('credits', '+', refund) }))
        .where('id', '=', accountId)
        .execute();
    return true;
  });
}

/** The next due time after `now` on the monitor's own phase (missed runs are not caught up). */
export function nextDue(previousDueMs: number, intervalSeconds: number, nowMs: number): number {
  const step = intervalSeconds * 1000;
  if (previousDueMs + step > nowMs) return previousDueMs + step;
  return previousDueMs + (Math.floor((nowMs - previousDueMs) / step) + 1) * step;
}

/**
 * Turns due monitors into queued runs, in a constant number of statements per batch: the due rows
 * are selected (on PostgreSQL locked, rows another scheduler holds skipped), their next_run_at
 * moved on in one UPDATE, and their runs inserted in one INSERT. A monitor whose previous run is
 * still open (slow page, backlog, run now) skips this due time: one open run per monitor (a
 * unique index guards it, a racing manual run included). `accountCap` bounds each account's open
 * runs: an account at its cap keeps its monitors due — claimed on a later pass, when its runs
 * finish — and is left out of the query, so its backlog never fills the batch ahead of others.
 */
export async function claimDueMonitors(
  db: Db,
  now: Date,
  limit: number,
  queueLeaseMs: number,
  accountCap = Infinity,
): Promise<string[]> {
  if (limit <= 0) return [];
  const nowIso = now.toISOString();
  const lease = new Date(now.getTime() + queueLeaseMs).toISOString();
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return db.transaction().execute(async (trx) => {
    const open = new Map<string, number>();
    const full: string[] = [];
    if (Number.isFinite(accountCap)) {
      const rows = await trx
        .selectFrom('monitor_runs')
        .select(['account_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('status', 'in', ['queued', 'running'])
        .groupBy('account_id')
        .execute();
      for (const r of rows) {
        open.set(r.account_id, Number(r.n));
        if (Number(r.n) >= accountCap) full.push(r.account_id);
      }
    }
    const moved: { id: string; next: string }[] = [];
    const runs: Insertable<MonitorRunsTable>[] = [];
    const seen = new Set<string>();
    for (;;) {
      const asked = limit - runs.length;
      let q = trx
        .selectFrom('monitors')
        .select(['monitors.id', 'monitors.account_id', 'monitors.next_run_at', 'monitors.interval_seconds'])
        .select((eb) =>
          eb
            .exists(
              eb
                .selectFrom('monitor_runs')
                .select('monitor_runs.id')
                .whereRef('monitor_runs.monitor_id', '=', 'monitors.id')
                .where('monitor_runs.status', 'in', ['queued', 'running']),
            )
            .as('busy'),
        )
        .where('monitors.state', '=', 'active')
        .where('monitors.next_run_at', '<=', nowIso)
        .orderBy('monitors.next_run_at')
        .limit(asked);
      if (full.length) q = q.where('monitors.account_id', 'not in', full);
      if (seen.size) q = q.where('monitors.id', 'not in', [...seen]);
      if (postgres) q = q.forUpdate().skipLocked();
      const due = await q.execute();
      let capped = false;
      for (const m of due) {
        seen.add(m.id);
        const n = open.get(m.account_id) ?? 0;
        if (n >= accountCap) {
          if (!full.includes(m.account_id)) full.push(m.account_id);
          capped = true;
          continue;
        }
        moved.push({
          id: m.id,
          next: new Date(nextDue(Date.parse(m.next_run_at), m.interval_seconds, now.getTime())).toISOString(),
        });
        if (m.busy) continue; // this due time is missed, as a late run's would be
        open.set(m.account_id, n + 1);
        runs.push({
          id: newId('run'),
          monitor_id: m.id,
          account_id: m.account_id,
          trigger: 'schedule',
          status: 'queued',
          due_at: m.next_run_at,
          lease_until: lease,
          credits: 0,
        });
      }
      // Look again without the accounts that just reached their cap, while the batch has room.
      if (!capped || due.length < asked || runs.length >= limit) break;
    }
    if (moved.length) {
      await trx
        .updateTable('monitors')
        .set({
          next_run_at: sql<string>`CASE ${sql.join(
            moved.map((m) => sql`WHEN id = ${m.id} THEN ${m.next}`),
            sql` `,
          )} END`,
        })
        .where(
          'id',
          'in',
          moved.map((m) => m.id),
        )
        .execute();
    }
    if (!runs.length) return [];
    // A manual run that slipped in meanwhile holds the monitor's one open run: this one is not written.
    const written = await trx
      .insertInto('monitor_runs')
      .values(runs)
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute();
    return written.map((r) => r.id);
  });
}

/** Queued runs the queue refused: their lease ends now, so the next sweep hands them out again. */
export async function releaseQueuedRuns(db: Db, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await db
    .updateTable('monitor_runs')
    .set({ lease_until: new Date(0).toISOString() })
    .where('id', 'in', ids)
    .where('status', '=', 'queued')
    .execute();
}

export const getRun = (db: Db, id: string): Promise<MonitorRun | undefined> =>
  db.selectFrom('monitor_runs').selectAll().where('id', '=', id).executeTakeFirst();

/** Newest first, values and changes expanded (snapshot references replaced by the values). */
export const listRuns = async (db: Db, monitorId: string, limit: number): Promise<MonitorRun[]> =>
  expandRows(
    db,
    await db
      .selectFrom('monitor_runs')
      .selectAll()
      .where('monitor_id', '=', monitorId)
      .orderBy('due_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute(),
    'values',
    'changes',
  );

/** Unchanged successful runs the pruner collapsed into counts, per UTC day, newest first. */
export const unchangedRunCounts = (db: Db, monitorId: string): Promise<{ day: string; unchanged_runs: number }[]> =>
  db
    .selectFrom('monitor_run_counts')
    .select(['day', 'unchanged_runs'])
    .where('monitor_id', '=', monitorId)
    .orderBy('day', 'desc')
    .execute();

/**
 * Runs whose runner is presumed gone: queued or running past their lease (all of them when
 * `all`, as at the start of the only process of an embedded deployment). They go back to
 * `queued` with a fresh lease (a credit already taken stays with the run) and are returned to
 * be handed out again.
 */
export async function takeStaleRuns(db: Db, now: Date, limit: number, leaseMs: number, all = false): Promise<string[]> {
  let q = db.selectFrom('monitor_runs').select('id').where('status', 'in', ['queued', 'running']);
  if (!all) q = q.where('lease_until', '<', now.toISOString());
  const rows = await q.limit(limit).execute();
  if (!rows.length) return [];
  let u = db
    .updateTable('monitor_runs')
    .set({ status: 'queued', lease_until: new Date(now.getTime() + leaseMs).toISOString() })
    .where(
      'id',
      'in',
      rows.map((r) => r.id),
    )
    .where('status', 'in', ['queued', 'running']);
  if (!all) u = u.where('lease_until', '<', now.toISOString());
  await u.execute();
  return rows.map((r) => r.id);
}

/**
 * Successful runs' values of one field, newest first, before a cursor (values expanded). Unchanged
 * runs older than a day are collapsed by the pruner: the points left are where values changed, so
 * the series still steps as it did.
 */
export async function fieldHistory(
  db: Db,
  monitorId: string,
  limit: number,
  before?: string,
): Promise<{ at: string; values: string }[]> {
  let q = db
    .selectFrom('monitor_runs')
    .select(['finished_at', 'values'])
    .where('monitor_id', '=', monitorId)
    .where('status', '=', 'succeeded');
  if (before) q = q.where('finished_at', '<', before);
  const rows = await q.orderBy('finished_at', 'desc').limit(limit).execute();
  const values = await expandAll(
    db,
    rows.map((r) => r.values),
  );
  return rows.map((r, i) => ({ at: r.finished_at!, values: values[i] ?? '{}' }));
}
