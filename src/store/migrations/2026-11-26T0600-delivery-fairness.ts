import type { Kysely } from 'kysely';

/**
 * The relay counts each account's deliveries in flight (being sent, or handed to the queue and
 * not yet taken) on every pass, to keep one account's backlog from filling the delivery lanes.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_in_flight')
    .on('webhook_deliveries')
    .columns(['state', 'handed_until', 'account_id'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_in_flight').execute();
}
