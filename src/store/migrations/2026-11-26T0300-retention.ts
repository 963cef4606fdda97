import { sql, type Kysely } from 'kysely';

/**
 * Retention (issue 27, point 6): what the pruner needs to find old rows without scanning, and
 * where what it compacts goes.
 *  - monitor_run_counts: unchanged successful runs collapsed into a count per monitor and UTC day.
 *  - usage_hourly: usage rows older than a day summed per account, key ('' = none), endpoint,
 *    status and UTC hour (status kept so errors by status stay exact).
 *  - snapshots: large watched values stored once, by the SHA-256 of their JSON; snapshot_refs
 *    says which runs use which (gone with the run). A monitor's baseline (last_values) refers to
 *    snapshots too; the pruner reads those refs from monitors itself.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('monitor_run_counts')
    .addColumn('monitor_id', 'text', (c) => c.notNull().references('monitors.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('unchanged_runs', 'integer', (c) => c.notNull())
    .addColumn('credits', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('monitor_run_counts_pk', ['monitor_id', 'day'])
    .execute();
  await db.schema.createIndex('monitor_run_counts_day').on('monitor_run_counts').column('day').execute();

  await db.schema
    .createTable('usage_hourly')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .addColumn('credits', 'integer', (c) => c.notNull())
    .addColumn('errors', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_hourly_pk', ['account_id', 'hour', 'key_id', 'endpoint', 'status'])
    .execute();
  await db.schema.createIndex('usage_hourly_hour').on('usage_hourly').column('hour').execute();

  await db.schema
    .createTable('snapshots')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    /** Last time a run stored it (refreshed at most every few minutes): the pruner's grace period counts from here. */
    .addColumn('stored_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('snapshots_stored').on('snapshots').column('stored_at').execute();
  await db.schema
    .createTable('snapshot_refs')
    .addColumn('run_id', 'text', (c) => c.notNull().references('monitor_runs.id').onDelete('cascade'))
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('snapshot_refs_pk', ['run_id', 'hash'])
    .execute();
  await db.schema.createIndex('snapshot_refs_hash').on('snapshot_refs').column('hash').execute();

  // The pruner's scans: old finished runs, the later runs of a monitor, old rows of the outbox and usage.
  await db.schema.createIndex('monitor_runs_finished').on('monitor_runs').column('finished_at').execute();
  // Only the runs still to collapse (changed runs, kept a month, are not scanned again every pass).
  await sql`create index monitor_runs_unchanged on monitor_runs (status, finished_at) where changes is null`.execute(
    db,
  );
  await db.schema
    .createIndex('monitor_runs_monitor_status')
    .on('monitor_runs')
    .columns(['monitor_id', 'status', 'finished_at'])
    .execute();
  await db.schema.createIndex('webhook_events_created').on('webhook_events').column('created_at').execute();
  await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').column('created_at').execute();
  // Also what deleting a monitor needs (issue 27 point 4); IF NOT EXISTS in case another migration adds it first.
  await db.schema
    .createIndex('webhook_deliveries_event_id')
    .ifNotExists()
    .on('webhook_deliveries')
    .column('event_id')
    .execute();
  await db.schema.createIndex('usage_created').on('usage').column('created_at').execute();
  await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const i of [
    'monitor_runs_unchanged',
    'sessions_expires',
    'usage_created',
    'webhook_deliveries_event_id',
    'webhook_deliveries_created',
    'webhook_events_created',
    'monitor_runs_monitor_status',
    'monitor_runs_finished',
  ]) {
    await db.schema.dropIndex(i).ifExists().execute();
  }
  for (const t of ['snapshot_refs', 'snapshots', 'usage_hourly', 'monitor_run_counts'])
    await db.schema.dropTable(t).execute();
}
