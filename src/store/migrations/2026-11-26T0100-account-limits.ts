import type { Kysely } from 'kysely';

/**
 * The highest rate limit (requests per minute) any key of the account may have, set by the
 * operator (`trawl account limits`). Null means the deployment's TRAWL_RATE_LIMIT_PER_MINUTE.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('rate_limit_ceiling', 'integer').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('rate_limit_ceiling').execute();
}
