/**
 * Pending deliveries given up at once (a monitor's webhook or a channel disabled): each is
 * logged as a last, unsent attempt, so attempt numbers stay unique and a replay's hand-out
 * (queue job id: delivery id + attempt) is never mistaken for one already handed out.
 */
import type { Db } from '../accounts.js';

export async function failPending(
  trx: Db,
  pending: readonly { id: string; attempts: number }[],
  error: string,
  at: string,
): Promise<void> {
  for (const d of pending) {
    const r = await trx
      .updateTable('webhook_deliveries')
      .set({ state: 'failed', attempts: d.attempts + 1, next_attempt_at: null, last_error: error, updated_at: at })
      .where('id', '=', d.id)
      .where('state', '=', 'pending')
      .where('attempts', '=', d.attempts)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) continue;
    await trx
      .insertInto('delivery_attempts')
      .values({
        delivery_id: d.id,
        attempt: d.attempts + 1,
        manual: 0,
        outcome: 'failed',
        started_at: at,
        finished_at: at,
        error,
        duration_ms: 0,
      })
      .execute();
  }
}
