/**
 * The outbox: events written with the run that found them, one delivery per event, and one
 * row per attempt. A delivery is claimed for an attempt with a conditional UPDATE on its state
 * and attempt count, so two workers never make the same attempt.
 */
import type { DeliveryAttempt, WebhookDelivery } from '../tables.js';
import type { Db } from './accounts.js';

export const getDelivery = (db: Db, id: string): Promise<WebhookDelivery | undefined> =>
  db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();

export const listDeliveries = (db: Db, monitorId: string, limit: number) =>
  db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
    .selectAll('webhook_deliveries')
    .select('webhook_events.body')
    .where('webhook_deliveries.monitor_id', '=', monitorId)
    .orderBy('webhook_deliveries.created_at', 'desc')
    .orderBy('webhook_deliveries.id', 'desc')
    .limit(limit)
    .execute();

export const attemptsOf = (db: Db, deliveryIds: string[]): Promise<DeliveryAttempt[]> =>
  deliveryIds.length
    ? db.selectFrom('delivery_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('attempt').orderBy('id').execute()
    : Promise.resolve([]);

/** Pending deliveries whose next attempt is due: (id, attempts) pairs. */
export const dueDeliveries = (db: Db, now: Date, limit: number) =>
  db
    .selectFrom('webhook_deliveries')
    .select(['id', 'attempts'])
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', now.toISOString())
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();

/** Deliveries left in `sending` by a process that died (past their lease, or all of them). */
export async function staleSending(db: Db, now: Date, all = false): Promise<WebhookDelivery[]> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('state', '=', 'sending');
  if (!all) q = q.where('lease_until', '<', now.toISOString());
  return q.limit(1000).execute();
}

/** The earliest time something is due (a monitor run or a delivery attempt), for the scheduler's sleep. */
export async function nextDueAt(db: Db): Promise<string | undefined> {
  const [m, d] = await Promise.all([
    db.selectFrom('monitors').select((eb) => eb.fn.min('next_run_at').as('t')).where('state', '=', 'active').executeTakeFirst(),
    db.selectFrom('webhook_deliveries').select((eb) => eb.fn.min('next_attempt_at').as('t')).where('state', '=', 'pending').executeTakeFirst(),
  ]);
  const times = [m?.t, d?.t].filter((t): t is string => typeof t === 'string');
  return times.sort()[0];
}
