import type { Kysely } from 'kysely';

/**
 * jobs.truncated: a crawl's page limit left links it found unfetched (a synchronous crawl runs as a
 * job and answers `truncated` from it).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('truncated', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('truncated').execute();
}
