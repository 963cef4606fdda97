import type { Kysely } from 'kysely';

/**
 * Job webhooks (contract section 7): a job keeps the URL its events go to and the opt-in events
 * (`job.page`); `job_events` is their outbox — each event written in the transaction that made
 * it (a page, the job's end), then sent, signed and retried like a monitor's deliveries.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('webhook', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('webhook_events', 'text').execute();
  await db.schema
    .createTable('job_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    // Headers of the caller's own to send with it (a Firecrawl webhook's `headers`), JSON.
    .addColumn('headers', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('job_events_due').on('job_events').columns(['state', 'next_attempt_at']).execute();
  await db.schema.createIndex('job_events_job').on('job_events').columns(['job_id']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('job_events').execute();
  await db.schema.alterTable('jobs').dropColumn('webhook_events').execute();
  await db.schema.alterTable('jobs').dropColumn('webhook').execute();
}
