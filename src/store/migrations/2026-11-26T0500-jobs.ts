import { sql, type Kysely } from 'kysely';

/**
 * Jobs (batch scrapes, async crawls): the job, its work items (the frontier: one row per URL,
 * unique per job, so the seen set lives here and not in a process) and its result pages in order
 * of completion (read back by cursor). Items are claimed with leases like monitor runs.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('written', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_items', 'integer', (c) => c.notNull())
    .addColumn('seq_next', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('jobs_account').on('jobs').columns(['account_id', 'created_at']).execute();
  await db.schema.createIndex('jobs_state').on('jobs').columns(['state', 'created_at']).execute();
  await db.schema
    .createTable('job_items')
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('depth', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('job_items_pk', ['job_id', 'seq'])
    .execute();
  await db.schema.createIndex('job_items_url').on('job_items').columns(['job_id', 'url']).unique().execute();
  await sql`CREATE INDEX job_items_queued ON job_items (job_id, seq) WHERE state = 'queued'`.execute(db);
  await sql`CREATE INDEX job_items_running ON job_items (lease_until) WHERE state = 'running'`.execute(db);
  await db.schema
    .createTable('job_pages')
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('job_pages_pk', ['job_id', 'n'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['job_pages', 'job_items', 'jobs']) await db.schema.dropTable(t).execute();
}
