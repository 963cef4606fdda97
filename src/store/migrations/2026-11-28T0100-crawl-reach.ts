import { sql, type Kysely } from 'kysely';

/**
 * A crawl reaches every page it may: queued items are claimed by depth, then seq (the queued
 * index leads with depth so a claim reads them in that order), and a claim looks up the
 * shallowest item still open (queued or running) per job; `jobs.not_fetched` counts the URLs a
 * crawl found and left out (its page limit, or more links on one page than are looked at).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('not_fetched', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`DROP INDEX job_items_queued`.execute(db);
  await sql`CREATE INDEX job_items_queued ON job_items (job_id, depth, seq) WHERE state = 'queued'`.execute(db);
  await sql`CREATE INDEX job_items_running_depth ON job_items (job_id, depth) WHERE state = 'running'`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX job_items_running_depth`.execute(db);
  await sql`DROP INDEX job_items_queued`.execute(db);
  await sql`CREATE INDEX job_items_queued ON job_items (job_id, seq) WHERE state = 'queued'`.execute(db);
  await db.schema.alterTable('jobs').dropColumn('not_fetched').execute();
}
