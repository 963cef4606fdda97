import { PostgresAdapter, type Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * Monitors, their runs, the events runs find (the outbox) and the deliveries of those events
 * with one row per attempt. Times are ISO-8601 UTC text (they sort as they compare); JSON is
 * text. Deleting a monitor deletes everything below it, so nothing is sent for it afterwards.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const serial = isPostgres(db) ? 'bigserial' : 'integer';
  await db.schema
    .createTable('monitors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('interval', 'text', (c) => c.notNull())
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    .addColumn('watch', 'text', (c) => c.notNull())
    .addColumn('webhook', 'text', (c) => c.notNull())
    .addColumn('marketplace', 'text')
    .addColumn('schema', 'text')
    .addColumn('conditions', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('health', 'text', (c) => c.notNull().defaultTo('ok'))
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_values', 'text')
    .addColumn('last_success_at', 'text')
    .addColumn('last_run_at', 'text')
    .addColumn('next_run_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('monitors_due').on('monitors').columns(['state', 'next_run_at']).execute();
  await db.schema.createIndex('monitors_account').on('monitors').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('monitor_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('monitor_id', 'text', (c) => c.notNull().references('monitors.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('due_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('credits', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status_code', 'integer')
    .addColumn('values', 'text')
    .addColumn('changes', 'text')
    .addColumn('event_id', 'text')
    .addColumn('error', 'text')
    .execute();
  // One run per monitor and due time, however many schedulers race for it.
  await db.schema
    .createIndex('monitor_runs_due')
    .on('monitor_runs')
    .columns(['monitor_id', 'due_at'])
    .unique()
    .execute();
  await db.schema.createIndex('monitor_runs_status').on('monitor_runs').columns(['status', 'lease_until']).execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('monitor_id', 'text', (c) => c.notNull().references('monitors.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('monitor_id', 'text', (c) => c.notNull().references('monitors.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['state', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_monitor')
    .on('webhook_deliveries')
    .columns(['monitor_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', serial, (c) => (isPostgres(db) ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('manual', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer')
    .execute();
  await db.schema
    .createIndex('delivery_attempts_delivery')
    .on('delivery_attempts')
    .columns(['delivery_id', 'attempt'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['delivery_attempts', 'webhook_deliveries', 'webhook_events', 'monitor_runs', 'monitors'])
    await db.schema.dropTable(t).execute();
}
