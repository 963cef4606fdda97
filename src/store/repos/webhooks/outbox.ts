/** The outbox's writes outside an attempt: an event and its first delivery, and a replay of failed ones. */
import { newId } from '../../ids.js';
import type { Db } from '../accounts.js';
import { channelsForMonitor } from '../channels.js';

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
    // The webhook's deliveries: a channel's failed messages are not sent again (a person would read them late).
    .where('channel_id', 'is', null)
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
 * Writes one event of a monitor and its deliveries (the outbox), inside the caller's
 * transaction: the monitor's event counter moves on in the same statement that reads the
 * webhook (on PostgreSQL it also locks the monitor row), so `sequence` has no gaps or repeats.
 * One delivery to the monitor's webhook (unless `webhook: false`: an event only the channels
 * read, which takes no sequence number) and one per active notification channel of the monitor
 * (unless `channels: false`); the unique (event, channel) index makes a second one impossible.
 */
export async function writeEvent(
  trx: Db,
  e: {
    monitorId: string;
    accountId: string;
    runId: string;
    at: string;
    handedUntil?: string | null;
    webhook?: boolean;
    channels?: boolean;
  },
  build: (sequence: number, url: string) => { id: string; body: string },
): Promise<{ eventId: string; deliveryId: string | undefined; channelDeliveryIds: string[] } | undefined> {
  const webhook = e.webhook ?? true;
  const m = webhook
    ? await trx
        .updateTable('monitors')
        .set((eb) => ({ event_sequence: eb('event_sequence', '+', 1) }))
        .where('id', '=', e.monitorId)
        .returning(['event_sequence', 'url', 'webhook'])
        .executeTakeFirst()
    : await trx
        .selectFrom('monitors')
        .select(['event_sequence', 'url', 'webhook'])
        .where('id', '=', e.monitorId)
        .executeTakeFirst();
  if (!m) return undefined;
  const channels = e.channels === false ? [] : await channelsForMonitor(trx, e.accountId, e.monitorId);
  if (!webhook && !channels.length) return undefined;
  const { id, body } = build(Number(m.event_sequence), m.url);
  await trx
    .insertInto('webhook_events')
    .values({ id, monitor_id: e.monitorId, account_id: e.accountId, run_id: e.runId, body, created_at: e.at })
    .execute();
  const row = (url: string, channelId: string | null) => ({
    id: newId('dlv'),
    event_id: id,
    monitor_id: e.monitorId,
    account_id: e.accountId,
    url,
    channel_id: channelId,
    state: 'pending' as const,
    attempts: 0,
    next_attempt_at: e.at,
    handed_until: e.handedUntil ?? null,
    created_at: e.at,
    updated_at: e.at,
  });
  const rows = [...(webhook ? [row(m.webhook, null)] : []), ...channels.map((c) => row(c.target, c.id))];
  await trx.insertInto('webhook_deliveries').values(rows).execute();
  return {
    eventId: id,
    deliveryId: webhook ? rows[0].id : undefined,
    channelDeliveryIds: rows.filter((r) => r.channel_id).map((r) => r.id),
  };
}
