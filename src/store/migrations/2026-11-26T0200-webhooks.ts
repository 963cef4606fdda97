import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * The webhook protocol of issue 27 (contract section 5):
 * - accounts keep the previous signing secret and when it stops being valid (rotation overlap);
 *   secrets of the first form (`whsec_` + base62, not base64 of 32 bytes) are rotated here to
 *   `whsec_<base64 of 32 random bytes>`, the old one kept valid for 24 h like any rotation;
 * - monitors count their events (`event_sequence`), choose their events (`events`), and carry the
 *   state of their webhook (`webhook_state`, why and when it was disabled, and since when it has
 *   been failing without a success in between);
 * - deliveries know where the current schedule started (`schedule_offset`: a replay starts a new
 *   one without renumbering attempts); each attempt records the URL it went to.
 * Frozen in time: the 24 h of the migration's own overlap is not read from the configuration.
 */
const OVERLAP_MS = 24 * 3600_000;
const CURRENT_FORM = /^whsec_[A-Za-z0-9+/]{43}=$/;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('previous_signing_secret', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('previous_secret_expires_at', 'text').execute();

  await db.schema
    .alterTable('monitors')
    .addColumn('event_sequence', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('monitors')
    .addColumn('events', 'text', (c) => c.notNull().defaultTo('["change.detected"]'))
    .execute();
  await db.schema
    .alterTable('monitors')
    .addColumn('webhook_state', 'text', (c) => c.notNull().defaultTo('active'))
    .execute();
  await db.schema.alterTable('monitors').addColumn('webhook_disabled_at', 'text').execute();
  await db.schema.alterTable('monitors').addColumn('webhook_disabled_reason', 'text').execute();
  await db.schema.alterTable('monitors').addColumn('webhook_failing_since', 'text').execute();

  await db.schema
    .alterTable('webhook_deliveries')
    .addColumn('schedule_offset', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('delivery_attempts').addColumn('url', 'text').execute();
  // Replay: an account's failed deliveries since a time.
  await db.schema
    .createIndex('webhook_deliveries_account_state')
    .on('webhook_deliveries')
    .columns(['account_id', 'state', 'created_at'])
    .execute();

  const old = await db.selectFrom('accounts').select(['id', 'signing_secret']).execute();
  const expires = new Date(Date.now() + OVERLAP_MS).toISOString();
  for (const a of old as { id: string; signing_secret: string }[]) {
    if (CURRENT_FORM.test(a.signing_secret)) continue;
    await db
      .updateTable('accounts')
      .set({
        signing_secret: `whsec_${randomBytes(32).toString('base64')}`,
        previous_signing_secret: a.signing_secret,
        previous_secret_expires_at: expires,
      })
      .where('id', '=', a.id)
      .where('signing_secret', '=', a.signing_secret)
      .execute();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_account_state').execute();
  await db.schema.alterTable('delivery_attempts').dropColumn('url').execute();
  await db.schema.alterTable('webhook_deliveries').dropColumn('schedule_offset').execute();
  for (const c of [
    'webhook_failing_since',
    'webhook_disabled_reason',
    'webhook_disabled_at',
    'webhook_state',
    'events',
    'event_sequence',
  ])
    await db.schema.alterTable('monitors').dropColumn(c).execute();
  for (const c of ['previous_secret_expires_at', 'previous_signing_secret'])
    await db.schema.alterTable('accounts').dropColumn(c).execute();
}
