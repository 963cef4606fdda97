import type { Kysely } from 'kysely';

/**
 * jobs.held: 1 while a synchronous crawl's pages are not yet paid for (its answer has not been
 * charged): they are not readable from the jobs API until then, so a caller cannot read them
 * there and hang up for nothing.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('held', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('held').execute();
}
