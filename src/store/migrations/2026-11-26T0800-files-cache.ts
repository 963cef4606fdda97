import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Browser-grade pages (contract section 9):
 *  - files: screenshots, kept in the store so that any process of a scale-out serves them, behind
 *    an unguessable id, until `expires_at` (TRAWL_FILE_RETENTION_HOURS after they were made);
 *  - result_cache: scrape results by the hash of their URL and options (`max_age`), bounded in
 *    bytes (TRAWL_CACHE_MAX_MB) by the pruner, oldest first;
 *  - monitors.scrape_options: how a monitor's page is fetched (actions, headers, cookies, mobile,
 *    location), as JSON.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const binary = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text')
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('body', binary, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('files_expires').on('files').column('expires_at').execute();
  await db.schema
    .createTable('result_cache')
    .addColumn('key', 'text', (c) => c.primaryKey())
    /** The account whose request made it (the key holds whether it is private to it). */
    .addColumn('account_id', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .execute();
  await db.schema.createIndex('result_cache_created').on('result_cache').column('created_at').execute();
  await db.schema.createIndex('result_cache_expires').on('result_cache').column('expires_at').execute();
  await db.schema.alterTable('monitors').addColumn('scrape_options', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('monitors').dropColumn('scrape_options').execute();
  await db.schema.dropTable('result_cache').execute();
  await db.schema.dropTable('files').execute();
}
