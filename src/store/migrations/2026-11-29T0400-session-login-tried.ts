import type { Kysely } from 'kysely';

/**
 * When a saved browser session last logged in again by itself (issue 44): a login that failed or
 * did not bring the session back holds the next automatic one off for a while, so a changed
 * password is not tried on every request (a lockout of the user's real account).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('browser_sessions').addColumn('login_tried_at', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('browser_sessions').dropColumn('login_tried_at').execute();
}
