import type { Kysely } from 'kysely';

/**
 * Saved browser sessions (issue 44): per account, a unique name, the sites it belongs to
 * (registrable domains, JSON), its storage state (cookies and localStorage) and its optional
 * login recipe, both sealed (sealed.ts) — nothing of either in clear. Status and the times it was
 * last used, refreshed and found expired. Deleting an account deletes its sessions.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('browser_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sites', 'text', (c) => c.notNull())
    .addColumn('state_sealed', 'text', (c) => c.notNull())
    .addColumn('recipe_sealed', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('last_refreshed_at', 'text')
    .addColumn('expired_at', 'text')
    .addUniqueConstraint('browser_sessions_account_name', ['account_id', 'name'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('browser_sessions').execute();
}
