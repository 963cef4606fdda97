import type { Kysely } from 'kysely';

/**
 * job_events.schedule_offset: the attempts made before a replay (POST /v1/webhooks/replay sends a
 * job's failed events again with a fresh retry schedule, as it does a monitor's deliveries).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('job_events')
    .addColumn('schedule_offset', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('job_events').dropColumn('schedule_offset').execute();
}
