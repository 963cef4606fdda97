import type { Kysely } from 'kysely';

/**
 * Files on disk (issue 39): a screenshot's bytes are kept in the file store (the data folder),
 * its row holds what it is, whose and until when. `storage`: 'disk' for those; 'db' for rows made
 * before, whose bytes are still in `body` and are served from there until they expire. Such a row
 * over 10 MiB (the byte cap screenshots have now) is deleted: read whole on the event loop, one
 * froze the service for seconds. Per account, by age: the per-account bound deletes the oldest.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('files')
    .addColumn('storage', 'text', (c) => c.notNull().defaultTo('db'))
    .execute();
  await db.schema.createIndex('files_account').on('files').columns(['account_id', 'created_at']).execute();
  await db
    .deleteFrom('files')
    .where('bytes', '>', 10 * 2 ** 20)
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('files_account').execute();
  await db.schema.alterTable('files').dropColumn('storage').execute();
}
