import { sql, type Kysely } from 'kysely';

/**
 * One open run per monitor (a partial unique index: two runs of one monitor can no longer both
 * diff against the same baseline), the time of the observation a baseline comes from (an older
 * run never replaces a newer one), the relay's claim on a delivery it handed to the queue (so
 * rows a queue lost rotate out instead of filling the due list), and the indexes a monitor's
 * delete walks (its events' deliveries).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // Runs left open side by side by older versions: keep the oldest, close the others and give
  // their credits back, so the unique index can be built.
  const extra = sql`status IN ('queued', 'running') AND id NOT IN (SELECT MIN(id) FROM monitor_runs WHERE status IN ('queued', 'running') GROUP BY monitor_id)`;
  await sql`UPDATE accounts SET credits = credits + (SELECT COALESCE(SUM(credits), 0) FROM monitor_runs WHERE monitor_runs.account_id = accounts.id AND ${extra})`.execute(
    db,
  );
  await sql`UPDATE monitor_runs SET status = 'failed', credits = 0, lease_until = NULL, error = 'closed on upgrade: one open run per monitor' WHERE ${extra}`.execute(
    db,
  );
  await sql`CREATE UNIQUE INDEX monitor_runs_open ON monitor_runs (monitor_id) WHERE status IN ('queued', 'running')`.execute(
    db,
  );
  await db.schema
    .createIndex('monitor_runs_account_open')
    .on('monitor_runs')
    .columns(['account_id', 'status'])
    .execute();
  await db.schema.alterTable('monitors').addColumn('baseline_at', 'text').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('handed_until', 'text').execute();
  // (webhook_deliveries.event_id is indexed by the retention migration before this one.)
  await db.schema
    .createIndex('webhook_events_monitor')
    .on('webhook_events')
    .columns(['monitor_id', 'created_at'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const i of ['webhook_events_monitor', 'monitor_runs_account_open', 'monitor_runs_open'])
    await db.schema.dropIndex(i).execute();
  await db.schema.alterTable('webhook_deliveries').dropColumn('handed_until').execute();
  await db.schema.alterTable('monitors').dropColumn('baseline_at').execute();
}
