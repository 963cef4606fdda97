/** Reads of the monitors' outbox: deliveries, their attempts, what an attempt needs, and what is due. */
import type { DeliveryAttempt, WebhookDelivery } from '../../tables.js';
import type { Db } from '../accounts.js';

export const getDelivery = (db: Db, id: string): Promise<WebhookDelivery | undefined> =>
  db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();

/** A monitor's deliveries newest first (or the one `deliveryId`), with their event bodies. */
export function listDeliveries(db: Db, monitorId: string, limit: number, deliveryId?: string) {
  let q = db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
    .selectAll('webhook_deliveries')
    .select('webhook_events.body')
    .where('webhook_deliveries.monitor_id', '=', monitorId)
    // The webhook's own: channels' messages are shown with their channel.
    .where('webhook_deliveries.channel_id', 'is', null);
  if (deliveryId) q = q.where('webhook_deliveries.id', '=', deliveryId);
  return q
    .orderBy('webhook_deliveries.created_at', 'desc')
    .orderBy('webhook_deliveries.id', 'desc')
    .limit(limit)
    .execute();
}

export const attemptsOf = (db: Db, deliveryIds: string[]): Promise<DeliveryAttempt[]> =>
  deliveryIds.length
    ? db
        .selectFrom('delivery_attempts')
        .selectAll()
        .where('delivery_id', 'in', deliveryIds)
        .orderBy('attempt')
        .orderBy('id')
        .execute()
    : Promise.resolve([]);

/** Deliveries left in `sending` by a process that died (past their lease, or all of them). */
export async function staleSending(db: Db, now: Date, all = false): Promise<WebhookDelivery[]> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('state', '=', 'sending');
  if (!all) q = q.where('lease_until', '<', now.toISOString());
  return q.limit(1000).execute();
}

/** The earliest time something is due (a monitor run or a delivery attempt), for the scheduler's sleep. */
export async function nextDueAt(db: Db): Promise<string | undefined> {
  const [m, d] = await Promise.all([
    db
      .selectFrom('monitors')
      .select((eb) => eb.fn.min('next_run_at').as('t'))
      .where('state', '=', 'active')
      .executeTakeFirst(),
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.min('next_attempt_at').as('t'))
      .where('state', '=', 'pending')
      .executeTakeFirst(),
  ]);
  const times = [m?.t, d?.t].filter((t): t is string => typeof t === 'string');
  return times.sort()[0];
}

/** What one attempt needs, read at attempt time: the stored body, the monitor's current webhook, the account's secrets. */
export const deliveryTarget = (db: Db, eventId: string) =>
  db
    .selectFrom('webhook_events')
    .innerJoin('monitors', 'monitors.id', 'webhook_events.monitor_id')
    .innerJoin('accounts', 'accounts.id', 'webhook_events.account_id')
    .select([
      'webhook_events.body',
      'webhook_events.run_id',
      'monitors.webhook as url',
      'monitors.webhook_state',
      'monitors.webhook_disabled_reason',
      'accounts.signing_secret',
      'accounts.previous_signing_secret',
      'accounts.previous_secret_expires_at',
    ])
    .where('webhook_events.id', '=', eventId)
    .executeTakeFirst();
export type DeliveryTarget = NonNullable<Awaited<ReturnType<typeof deliveryTarget>>>;
