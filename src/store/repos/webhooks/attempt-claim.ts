/**
 * An attempt's claim: a pending, due delivery moves to `sending` with a conditional UPDATE on its
 * state and attempt count (two workers never make the same attempt), under its account's cap, and
 * the attempt is logged with the URL it goes to. PostgreSQL's one-statement claim is in
 * ./attempt-postgres.ts; the portable transaction here is the reference both are tested against.
 */
import type { Db } from '../accounts.js';
import { claimAttemptInOneStatement } from './attempt-postgres.js';
import { deliveryTarget } from './reads.js';
import { channelById } from '../channels.js';
import { claimWindow, type Claim } from './types.js';
import { postgres } from './dialect.js';

/**
 * Claims attempt `attempts + 1` of a pending, due delivery (conditional UPDATE on state and
 * count: two workers never make the same attempt) and logs it with the URL it goes to — the
 * monitor's webhook now, not when the event was written. Undefined when it is not ours.
 */
export async function claimAttempt(
  db: Db,
  deliveryId: string,
  attempts: number,
  now: Date,
  leaseMs: number,
  accountCap = Infinity,
): Promise<Claim | undefined> {
  // PostgreSQL, the hot path of scale-out: claimed, logged and read in one statement.
  if (postgres(db)) {
    const fast = await claimAttemptInOneStatement(db, deliveryId, attempts, claimWindow(now, leaseMs, accountCap));
    if (fast !== 'other') return fast;
  }
  return claimAttemptPortable(db, deliveryId, attempts, now, leaseMs, accountCap);
}

/**
 * The portable claim (every dialect): a transaction of conditional statements. claimAttempt
 * takes it on SQLite, and on PostgreSQL when the one-statement claim has nothing to send.
 */
export async function claimAttemptPortable(
  db: Db,
  deliveryId: string,
  attempts: number,
  now: Date,
  leaseMs: number,
  accountCap = Infinity,
): Promise<Claim | undefined> {
  const { nowIso, dueBy, lease, cap } = claimWindow(now, leaseMs, accountCap);
  const claim = await db.transaction().execute(async (trx) => {
    let q = trx
      .updateTable('webhook_deliveries')
      .set({ state: 'sending', lease_until: lease, updated_at: nowIso })
      .where('id', '=', deliveryId)
      .where('state', '=', 'pending')
      .where('attempts', '=', attempts)
      .where('next_attempt_at', '<=', dueBy);
    if (cap !== null) {
      q = q.where((eb) =>
        eb(
          eb
            .selectFrom('webhook_deliveries as s')
            .select((e) => e.fn.countAll<number>().as('n'))
            .whereRef('s.account_id', '=', 'webhook_deliveries.account_id')
            .where('s.state', '=', 'sending'),
          '<',
          cap,
        ),
      );
    }
    const d = await q.returningAll().executeTakeFirst();
    if (!d) return undefined;
    const target = await deliveryTarget(trx, d.event_id);
    // A channel's message goes to the channel (read now: its current secret), not the webhook.
    const channel = d.channel_id ? await channelById(trx, d.channel_id) : undefined;
    const reason: string | undefined = !target
      ? 'not sent: the event is gone'
      : d.channel_id
        ? !channel
          ? 'not sent: the channel was deleted'
          : channel.state === 'disabled'
            ? `not sent: the channel is disabled (${channel.disabled_reason ?? 'by its owner'})`
            : undefined
        : target.webhook_state === 'disabled'
          ? `not sent: the monitor's webhook is disabled (${target.webhook_disabled_reason ?? 'by its owner'}); re-enable it, then replay`
          : undefined;
    if (!target || reason !== undefined) {
      const why = reason ?? 'not sent: the event is gone';
      // Logged and counted as an attempt: the next hand-out of this delivery (a replay) is a new attempt number.
      await trx
        .insertInto('delivery_attempts')
        .values({
          delivery_id: deliveryId,
          attempt: attempts + 1,
          manual: 0,
          outcome: 'failed',
          started_at: nowIso,
          finished_at: nowIso,
          error: why,
          duration_ms: 0,
          url: d.channel_id ? d.url : (target?.url ?? null),
        })
        .execute();
      await trx
        .updateTable('webhook_deliveries')
        .set({
          state: 'failed',
          attempts: attempts + 1,
          next_attempt_at: null,
          lease_until: null,
          last_status: null,
          last_error: why,
          updated_at: nowIso,
        })
        .where('id', '=', deliveryId)
        .execute();
      return { kind: 'not_sent' as const, reason: why };
    }
    // Logged with where it goes: a channel's redacted target, never its secret.
    const url = channel ? channel.target : target.url;
    const row = await trx
      .insertInto('delivery_attempts')
      .values({
        delivery_id: deliveryId,
        attempt: attempts + 1,
        manual: 0,
        outcome: 'sending',
        started_at: nowIso,
        url,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (d.url !== url) await trx.updateTable('webhook_deliveries').set({ url }).where('id', '=', deliveryId).execute();
    return { kind: 'attempt' as const, attemptId: Number(row.id), delivery: { ...d, url }, target, channel };
  });
  if (claim || cap === null) return claim;
  // Not claimed: if only for the account's cap, hand it back to the relay now (not after its hand-out window).
  const r = await db
    .updateTable('webhook_deliveries')
    .set({ handed_until: null })
    .where('id', '=', deliveryId)
    .where('state', '=', 'pending')
    .where('attempts', '=', attempts)
    .where('next_attempt_at', '<=', dueBy)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) ? { kind: 'busy' } : undefined;
}
