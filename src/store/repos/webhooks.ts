/**
 * The outbox: events written with the run that found them, one delivery per event, and one
 * row per attempt. A delivery is claimed for an attempt with a conditional UPDATE on its state
 * and attempt count, so two workers never make the same attempt.
 */
import { PostgresAdapter } from 'kysely';
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

/**
 * The relay's claim: pending deliveries whose next attempt is due and which no relay handed to the
 * queue in the last `handMs` (id, attempts). Claimed rows are marked handed, so a batch the queue
 * lost (or a worker never took) rotates out and others get their turn; past `handMs` they are
 * handed again. Racing relays on PostgreSQL skip each other's rows.
 */
export async function handDueDeliveries(db: Db, now: Date, limit: number, handMs: number): Promise<{ id: string; attempts: number }[]> {
  const nowIso = now.toISOString();
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  let pick = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', nowIso)
    .where((eb) => eb.or([eb('handed_until', 'is', null), eb('handed_until', '<', nowIso)]))
    .orderBy('next_attempt_at')
    .limit(limit);
  if (postgres) pick = pick.forUpdate().skipLocked();
  return db
    .updateTable('webhook_deliveries')
    .set({ handed_until: new Date(now.getTime() + handMs).toISOString() })
    .where('id', 'in', pick)
    .returning(['id', 'attempts'])
    .execute();
}

/** Deliveries the queue refused: no longer handed, so the next pass takes them again. */
export async function releaseHanded(db: Db, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await db.updateTable('webhook_deliveries').set({ handed_until: null }).where('id', 'in', ids).execute();
}

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
