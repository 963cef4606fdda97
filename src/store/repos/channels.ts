/**
 * Notification channels: an account's rows, the monitors they are attached to, which channels an
 * event of a monitor goes to, and each channel's health as its deliveries end. The messages
 * themselves are rows of the monitors' outbox (./webhooks/, `channel_id` set).
 */
import type { NotificationChannel } from '../tables.js';
import type { Db } from './accounts.js';
import { failPending } from './webhooks/fail-pending.js';

export const getChannel = (db: Db, accountId: string, id: string): Promise<NotificationChannel | undefined> =>
  db
    .selectFrom('notification_channels')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();

/** A channel by id alone (the sender's read at attempt time). */
export const channelById = (db: Db, id: string): Promise<NotificationChannel | undefined> =>
  db.selectFrom('notification_channels').selectAll().where('id', '=', id).executeTakeFirst();

export const listChannels = (db: Db, accountId: string): Promise<NotificationChannel[]> =>
  db
    .selectFrom('notification_channels')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('name')
    .limit(1000)
    .execute();

export const countChannels = async (db: Db, accountId: string): Promise<number> =>
  Number(
    (
      await db
        .selectFrom('notification_channels')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirst()
    )?.n ?? 0,
  );

/** Channels of the account by name (the `notify` list of a monitor); the missing names are left out. */
export const channelsByName = (db: Db, accountId: string, names: string[]) =>
  names.length
    ? db
        .selectFrom('notification_channels')
        .select(['id', 'name'])
        .where('account_id', '=', accountId)
        .where('name', 'in', names)
        .execute()
    : Promise.resolve([]);

export async function insertChannel(db: Db, row: NotificationChannel): Promise<void> {
  await db.insertInto('notification_channels').values(row).execute();
}

export async function updateChannel(
  db: Db,
  accountId: string,
  id: string,
  patch: Partial<NotificationChannel>,
): Promise<void> {
  await db
    .updateTable('notification_channels')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

export async function deleteChannel(db: Db, accountId: string, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom('notification_channels')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/** The monitor's attached channels become exactly these (ids of its own account). */
export async function setMonitorChannels(db: Db, monitorId: string, channelIds: string[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('monitor_channels').where('monitor_id', '=', monitorId).execute();
    if (channelIds.length)
      await trx
        .insertInto('monitor_channels')
        .values(channelIds.map((channel_id) => ({ monitor_id: monitorId, channel_id })))
        .execute();
  });
}

/** Names of the channels attached to each monitor (for their answers). */
export async function monitorChannelNames(db: Db, monitorIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (!monitorIds.length) return out;
  const rows = await db
    .selectFrom('monitor_channels')
    .innerJoin('notification_channels', 'notification_channels.id', 'monitor_channels.channel_id')
    .select(['monitor_channels.monitor_id', 'notification_channels.name'])
    .where('monitor_channels.monitor_id', 'in', monitorIds)
    .orderBy('notification_channels.name')
    .execute();
  for (const r of rows) out.set(r.monitor_id, [...(out.get(r.monitor_id) ?? []), r.name]);
  return out;
}

/** Active channels an event of this monitor goes to: the account's defaults and the monitor's own. */
export const channelsForMonitor = (db: Db, accountId: string, monitorId: string) =>
  db
    .selectFrom('notification_channels')
    .select(['id', 'target'])
    .where('account_id', '=', accountId)
    .where('state', '=', 'active')
    .where((eb) =>
      eb.or([
        eb('is_default', '=', 1),
        eb('id', 'in', eb.selectFrom('monitor_channels').select('channel_id').where('monitor_id', '=', monitorId)),
      ]),
    )
    .orderBy('id')
    .execute();

/** A channel's health after one of its deliveries: a success clears the streak, a failure extends it. */
export async function recordChannelOutcome(
  trx: Db,
  channelId: string,
  ok: boolean,
  at: string,
  attemptAt: string,
  error: string | null,
): Promise<NotificationChannel | undefined> {
  const q = trx.updateTable('notification_channels').where('id', '=', channelId);
  if (ok)
    return q
      .set({ failing_since: null, consecutive_failures: 0, last_success_at: at })
      .returningAll()
      .executeTakeFirst();
  return q
    .set((eb) => ({
      failing_since: eb.fn.coalesce('failing_since', eb.val(attemptAt)),
      consecutive_failures: eb('consecutive_failures', '+', 1),
      last_failure_at: at,
      last_error: error,
    }))
    .returningAll()
    .executeTakeFirst();
}

/**
 * Stops a channel: disabled with its reason, and its pending messages fail now (each logged as
 * a last, unsent attempt, as a disabled webhook's are). Returns whether this call disabled it.
 */
export async function disableChannel(trx: Db, channelId: string, reason: string, at: string): Promise<boolean> {
  const r = await trx
    .updateTable('notification_channels')
    .set({ state: 'disabled', disabled_at: at, disabled_reason: reason, updated_at: at })
    .where('id', '=', channelId)
    .where('state', '=', 'active')
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return false;
  const error = `not sent: the channel was disabled (${reason})`;
  const pending = await trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'attempts'])
    .where('channel_id', '=', channelId)
    .where('state', '=', 'pending')
    .execute();
  await failPending(trx, pending, error, at);
  return true;
}

/** The page title a monitor last saw (its baseline's `title`), for a message's subject; undefined when it does not watch one. */
export async function monitorTitle(db: Db, monitorId: string): Promise<string | undefined> {
  const m = await db.selectFrom('monitors').select('last_values').where('id', '=', monitorId).executeTakeFirst();
  try {
    const v = m?.last_values ? (JSON.parse(m.last_values) as Record<string, unknown>) : undefined;
    return typeof v?.title === 'string' ? v.title : undefined;
  } catch {
    return undefined;
  }
}
