import type { Kysely } from 'kysely';

/**
 * Notification channels (issue 44): an account's named places a person reads (email, Slack,
 * Discord, Teams, Telegram, generic JSON), their secrets sealed (`secret`, TRAWL_SECRET_KEY) and
 * shown only as `target` (redacted); their health; the monitors they are attached to. A message
 * to a channel is a row of the monitors' outbox (`webhook_deliveries.channel_id`): written in the
 * run's transaction, claimed, retried and disabled like a webhook delivery. One per event and
 * channel (unique index: the idempotency key).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notification_channels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('subject_template', 'text')
    .addColumn('body_template', 'text')
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('disabled_at', 'text')
    .addColumn('disabled_reason', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_success_at', 'text')
    .addColumn('last_failure_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notification_channels_name')
    .on('notification_channels')
    .columns(['account_id', 'name'])
    .unique()
    .execute();
  await db.schema
    .createTable('monitor_channels')
    .addColumn('monitor_id', 'text', (c) => c.notNull().references('monitors.id').onDelete('cascade'))
    .addColumn('channel_id', 'text', (c) => c.notNull().references('notification_channels.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('monitor_channels_pk', ['monitor_id', 'channel_id'])
    .execute();
  await db.schema.createIndex('monitor_channels_channel').on('monitor_channels').columns(['channel_id']).execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('channel_id', 'text').execute();
  await db.schema
    .createIndex('webhook_deliveries_event_channel')
    .on('webhook_deliveries')
    .columns(['event_id', 'channel_id'])
    .unique()
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_event_channel').execute();
  await db.schema.alterTable('webhook_deliveries').dropColumn('channel_id').execute();
  await db.schema.dropTable('monitor_channels').execute();
  await db.schema.dropTable('notification_channels').execute();
}
