/**
 * A monitor run's claim: who runs it, with its credit. On PostgreSQL the common case — a queued run
 * of an active monitor whose account has a credit, or a run taken over from a dead runner — is one
 * statement (one round trip: the scale-out hot path); everything else (a paused monitor, no
 * credits, a run held elsewhere, gone) goes through the general transaction, as on SQLite.
 */
import { PostgresAdapter, sql } from 'kysely';
import type { MonitorRun } from '../tables.js';
import type { Db } from './accounts.js';

export interface RunTarget {
  url: string;
  watch: string;
  schema: string | null;
  marketplace: string | null;
}

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

type Row = MonitorRun & { m_url: string; m_watch: string; m_schema: string | null; m_marketplace: string | null; fresh: number; charged: number };

async function claimInOneStatement(db: Db, runId: string, nowIso: string, lease: string): Promise<RunClaim | undefined> {
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
    SELECT got.*, m.url AS m_url, m.watch AS m_watch, m.schema AS m_schema, m.marketplace AS m_marketplace,
      (SELECT count(*) FROM fresh)::int AS fresh, (SELECT count(*) FROM charged)::int AS charged
    FROM got JOIN monitors m ON m.id = got.monitor_id`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  const { m_url, m_watch, m_schema, m_marketplace, fresh, charged, ...run } = row;
  if (fresh && !charged) {
    // The last credit went between the statement's check and its charge: the run is skipped.
    await db.updateTable('monitor_runs').set({ status: 'skipped', credits: 0, finished_at: nowIso, lease_until: null, error: 'skipped: the account has no credits left' }).where('id', '=', runId).execute();
    return { kind: 'skipped' };
  }
  return { kind: 'claimed', run: run as MonitorRun, monitor: { url: m_url, watch: m_watch, schema: m_schema, marketplace: m_marketplace } };
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
        await trx.updateTable('monitor_runs').set({ status: 'skipped', credits: 0, finished_at: nowIso, lease_until: null, error }).where('id', '=', runId).execute();
        await trx.updateTable('monitors').set({ last_run_at: nowIso }).where('id', '=', fresh.monitor_id).execute();
        return 'skipped' as const;
      };
      // A paused monitor runs only when asked to (run now); its queued scheduled runs stop here.
      if (fresh.trigger === 'schedule') {
        const m = await trx.selectFrom('monitors').select('state').where('id', '=', fresh.monitor_id).executeTakeFirst();
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
      .where((eb) => eb.or([eb.and([eb('status', '=', 'queued'), eb('credits', '=', 1)]), eb.and([eb('status', '=', 'running'), eb('lease_until', '<', nowIso)])]))
      .returningAll()
      .executeTakeFirst();
  });
  if (run === 'skipped') return { kind: 'skipped' };
  if (!run) {
    const held = await db.selectFrom('monitor_runs').select(['status', 'lease_until']).where('id', '=', runId).executeTakeFirst();
    return held?.status === 'running' && held.lease_until ? { kind: 'held', until: held.lease_until } : { kind: 'none' };
  }
  const m = await db.selectFrom('monitors').select(['url', 'watch', 'schema', 'marketplace']).where('id', '=', run.monitor_id).executeTakeFirst();
  return m ? { kind: 'claimed', run, monitor: m } : { kind: 'none' }; // deleted meanwhile: its credit went back with it
}
