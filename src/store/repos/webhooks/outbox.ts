/** The outbox's writes outside an attempt: an event and its first delivery, and a replay of failed ones. */
import { newId } from '../../ids.js';
import type { Db } from '../accounts.js';

/**
 * Replay: an account's failed deliveries created at or after `since` (one monitor's, or all)
 * become pending and due now, each with a fresh schedule; the scheduler sends them. Deliveries of
 * a monitor whose webhook is disabled stay as they are. Returns how many were scheduled.
 */
export async function replayFailed(
  db: Db,
  accountId: string,
  since: string,
  now: Date,
  monitorId?: string,
): Promise<number> {
  const nowIso = now.toISOString();
  let q = db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      state: 'pending',
      next_attempt_at: nowIso,
      schedule_offset: eb.ref('attempts'),
      handed_until: null,
      updated_at: nowIso,
    }))
    .where('account_id', '=', accountId)
    .where('state', '=', 'failed')
    .where('created_at', '>=', since)
    .where('monitor_id', 'in', (eb) => {
      let m = eb
        .selectFrom('monitors')
        .select('id')
        .where('account_id', '=', accountId)
        .where('webhook_state', '=', 'active');
      if (monitorId) m = m.where('id', '=', monitorId);
      return m;
    });
  if (monitorId) q = q.where('monitor_id', '=', monitorId);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Writes one event of a monitor and its first delivery (the outbox), inside the caller's
 * transaction: the monitor's event counter moves on in the same statement that reads the
 * webhook (on PostgreSQL it also locks the monitor row), so `sequence` has no gaps or repeats.
 */
export async function writeEvent(
  trx: Db,
  e: { monitorId: string; accountId: string; runId: string; at: string; handedUntil?: string | null },
  build: (sequence: number, url: string) => { id: string; body: string },
): Promise<{ eventId: string; deliveryId: string } | undefined> {
  const m = await trx
    .updateTable('monitors')
    .set((eb) => ({ event_sequence: eb('event_sequence', '+', 1) }))
    .where('id', '=', e.monitorId)
    .returning(['event_sequence', 'url', 'webhook'])
    .executeTakeFirst();
  if (!m) return undefined;
  const { id, body } = build(Number(m.event_sequence), m.url);
  await trx
    .insertInto('webhook_events')
    .values({ id, monitor_id: e.monitorId, account_id: e.accountId, run_id: e.runId, body, created_at: e.at })
    .execute();
  const deliveryId = newId('dlv');
  await trx
    .insertInto('webhook_deliveries')
    .values({
      id: deliveryId,
      event_id: id,
      monitor_id: e.monitorId,
      account_id: e.accountId,
      url: m.webhook,
      state: 'pending',
      attempts: 0,
      next_attempt_at: e.at,
      handed_until: e.handedUntil ?? null,
      created_at: e.at,
      updated_at: e.at,
    })
    .execute();
  return { eventId: id, deliveryId };
}
