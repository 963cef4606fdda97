/**
 * An attempt's end: its log row, the delivery's next state and its monitor's webhook health
 * (a 2xx clears the failing streak, a failure extends it, 410 or a long streak disables), in one
 * transaction; manual attempts (redeliver) and attempts whose sender died. PostgreSQL ends a
 * success in one statement (./attempt-postgres.ts).
 */
import type { WebhookDelivery } from '../../tables.js';
import type { Db } from '../accounts.js';
import { failPending } from './fail-pending.js';
import { finishSucceededInOneStatement } from './attempt-postgres.js';
import { postgres } from './dialect.js';
import { disableChannel, recordChannelOutcome } from '../channels.js';
import type { AttemptResult, FinishedAttempt, WebhookHealth } from './types.js';

/** Ends a claimed attempt: its log row, the delivery's next state, and the monitor's webhook health, in one transaction. */
export async function finishAttempt(db: Db, a: FinishedAttempt, health: WebhookHealth): Promise<void> {
  // A success on PostgreSQL (the common case): the log row, the monitor's streak and the delivery in one statement.
  if (a.sent.ok && postgres(db) && !health.channelId) return finishSucceededInOneStatement(db, a, health);
  return finishAttemptPortable(db, a, health);
}

/** The portable end (every dialect), the reference the PostgreSQL statement is tested against. */
export async function finishAttemptPortable(db: Db, a: FinishedAttempt, health: WebhookHealth): Promise<void> {
  const { sent } = a;
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('delivery_attempts')
      .set({
        outcome: sent.ok ? 'succeeded' : 'failed',
        finished_at: a.finishedAt,
        status_code: sent.status,
        error: sent.error,
        duration_ms: sent.durationMs,
      })
      .where('id', '=', a.attemptId)
      .execute();
    // The monitor first (its other pending deliveries fail if this attempt disables the webhook), then this delivery.
    const disabled = health.channelId
      ? await recordChannelHealth(trx, health.channelId, sent, health, a.finishedAt)
      : await recordWebhookHealth(trx, sent.ok, health, a.finishedAt);
    await trx
      .updateTable('webhook_deliveries')
      // handed_until cleared: the next attempt is a new hand-out for the relay.
      .set({
        state: disabled ? 'failed' : a.state,
        attempts: a.attempts + 1,
        next_attempt_at: disabled ? null : a.nextAttemptAt,
        lease_until: null,
        handed_until: null,
        last_status: sent.status,
        last_error: sent.error,
        updated_at: a.finishedAt,
      })
      .where('id', '=', a.deliveryId)
      .where('state', '=', 'sending')
      .where('attempts', '=', a.attempts)
      .execute();
  });
}

/** A channel's streak (its GET shows it); 410 or a streak past the window disables it. Returns whether this attempt did. */
async function recordChannelHealth(
  trx: Db,
  channelId: string,
  sent: AttemptResult,
  h: WebhookHealth,
  at: string,
): Promise<boolean> {
  const c = await recordChannelOutcome(trx, channelId, sent.ok, at, h.attemptAt, sent.error);
  if (sent.ok || !c || c.state !== 'active') return false;
  const reason = h.gone
    ? `the receiver answered 410 Gone at ${at}`
    : c.failing_since && c.failing_since <= h.disableIfFailingSince
      ? `no successful send since ${c.failing_since}`
      : undefined;
  if (!reason || !(await disableChannel(trx, channelId, reason, at))) return false;
  await h.onChannelDisabled?.(trx, reason);
  return true;
}

/** Returns whether this attempt disabled the webhook. */
async function recordWebhookHealth(trx: Db, ok: boolean, h: WebhookHealth, at: string): Promise<boolean> {
  if (ok) {
    await trx
      .updateTable('monitors')
      .set({ webhook_failing_since: null })
      .where('id', '=', h.monitorId)
      .where('webhook_failing_since', 'is not', null)
      .execute();
    return false;
  }
  if (h.gone) {
    await disableWebhook(trx, h.monitorId, `the receiver answered 410 Gone at ${at}`, at);
    return true;
  }
  const m = await trx
    .updateTable('monitors')
    .set((eb) => ({ webhook_failing_since: eb.fn.coalesce('webhook_failing_since', eb.val(h.attemptAt)) }))
    .where('id', '=', h.monitorId)
    .returning(['webhook_failing_since', 'webhook_state'])
    .executeTakeFirst();
  if (m?.webhook_state === 'active' && m.webhook_failing_since && m.webhook_failing_since <= h.disableIfFailingSince) {
    await disableWebhook(trx, h.monitorId, `no 2xx answer since ${m.webhook_failing_since}`, at);
    return true;
  }
  return false;
}

/**
 * Stops sending for a monitor: its webhook is disabled and its pending deliveries fail now (they
 * stay stored; `POST /v1/webhooks/replay` sends them again once the webhook is re-enabled).
 */
export async function disableWebhook(trx: Db, monitorId: string, reason: string, at: string): Promise<void> {
  await trx
    .updateTable('monitors')
    .set({ webhook_state: 'disabled', webhook_disabled_at: at, webhook_disabled_reason: reason })
    .where('id', '=', monitorId)
    .where('webhook_state', '=', 'active')
    .execute();
  const error = `not sent: the monitor's webhook was disabled (${reason})`;
  const pending = await trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'attempts'])
    .where('monitor_id', '=', monitorId)
    .where('channel_id', 'is', null)
    .where('state', '=', 'pending')
    .execute();
  await failPending(trx, pending, error, at);
}

/** A manual attempt (redeliver): logged first, outside the automatic schedule. */
export async function startManualAttempt(db: Db, deliveryId: string, url: string, at: string): Promise<number> {
  const last = await db
    .selectFrom('delivery_attempts')
    .select((eb) => eb.fn.max('attempt').as('n'))
    .where('delivery_id', '=', deliveryId)
    .executeTakeFirst();
  const row = await db
    .insertInto('delivery_attempts')
    .values({
      delivery_id: deliveryId,
      attempt: Number(last?.n ?? 0) + 1,
      manual: 1,
      outcome: 'sending',
      started_at: at,
      url,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Ends a manual attempt: a success ends pending retries (and the failing streak); a failure leaves the schedule as it was. */
export async function finishManualAttempt(
  db: Db,
  d: { id: string; monitorId: string },
  attemptId: number,
  sent: AttemptResult,
  at: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('delivery_attempts')
      .set({
        outcome: sent.ok ? 'succeeded' : 'failed',
        finished_at: at,
        status_code: sent.status,
        error: sent.error,
        duration_ms: sent.durationMs,
      })
      .where('id', '=', attemptId)
      .execute();
    const update = trx.updateTable('webhook_deliveries').where('id', '=', d.id);
    if (sent.ok) {
      await update
        .set({ state: 'succeeded', next_attempt_at: null, last_status: sent.status, last_error: null, updated_at: at })
        .where('state', 'in', ['pending', 'failed'])
        .execute();
      await trx
        .updateTable('monitors')
        .set({ webhook_failing_since: null })
        .where('id', '=', d.monitorId)
        .where('webhook_failing_since', 'is not', null)
        .execute();
    } else {
      await update
        .set({ last_status: sent.status, last_error: sent.error, updated_at: at })
        .where('state', '<>', 'sending')
        .execute();
    }
  });
}

/**
 * A delivery whose sender died mid-attempt: the attempt counts as failed (`interrupted`) and the
 * next is scheduled (or the delivery fails when its schedule is spent). False when it was not stale any more.
 */
export async function interruptAttempt(
  db: Db,
  d: WebhookDelivery,
  next: { state: 'pending' | 'failed'; nextAttemptAt: string | null },
  at: string,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const r = await trx
      .updateTable('webhook_deliveries')
      .set({
        state: next.state,
        attempts: d.attempts + 1,
        next_attempt_at: next.nextAttemptAt,
        lease_until: null,
        handed_until: null,
        last_status: null,
        last_error: 'interrupted: the process sending it stopped; outcome unknown',
        updated_at: at,
      })
      .where('id', '=', d.id)
      .where('state', '=', 'sending')
      .where('attempts', '=', d.attempts)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return false;
    await trx
      .updateTable('delivery_attempts')
      .set({ outcome: 'interrupted', finished_at: at, error: 'the process sending it stopped; outcome unknown' })
      .where('delivery_id', '=', d.id)
      .where('outcome', '=', 'sending')
      .where('manual', '=', 0)
      .execute();
    return true;
  });
}
