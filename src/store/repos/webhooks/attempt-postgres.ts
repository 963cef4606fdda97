/**
 * PostgreSQL's fast paths of an attempt, beside the portable ones (./attempt-claim.ts,
 * ./attempt-finish.ts) and doing what they do in one statement each: the claim (moved to
 * `sending`, logged, its target read) and a success's end (log row, the monitor's failing
 * streak, the delivery). test/store/webhooks-dialect-paths.test.ts runs both on one fixture.
 */
import { sql } from 'kysely';
import type { WebhookDelivery } from '../../tables.js';
import type { Db } from '../accounts.js';
import type { DeliveryTarget } from './reads.js';
import type { Claim, ClaimWindow, FinishedAttempt, WebhookHealth } from './types.js';

type Target = DeliveryTarget & { webhook_state: string };

/**
 * One statement: the delivery moves to `sending` (and to the monitor's current URL), the attempt
 * row is written, and what the attempt needs is read. 'other' when the claim succeeded but there
 * is nothing to send (event gone, webhook disabled), a channel's message (the portable path reads
 * its channel) — or nothing was claimed: the general path
 * then decides (it finds the delivery already claimed by this call and takes the first case).
 */
export async function claimAttemptInOneStatement(
  db: Db,
  deliveryId: string,
  attempts: number,
  { nowIso, dueBy, lease, cap }: ClaimWindow,
): Promise<Claim | undefined | 'other'> {
  const { rows } = await sql<{ delivery: WebhookDelivery; target: Target | null; attempt_id: number | null }>`
    WITH t AS (
      SELECT e.body, e.run_id, m.webhook AS url, m.webhook_state, m.webhook_disabled_reason, a.signing_secret, a.previous_signing_secret, a.previous_secret_expires_at
      FROM webhook_deliveries w JOIN webhook_events e ON e.id = w.event_id JOIN monitors m ON m.id = e.monitor_id JOIN accounts a ON a.id = e.account_id
      WHERE w.id = ${deliveryId} AND m.webhook_state <> 'disabled' AND w.channel_id IS NULL
    ), d AS (
      UPDATE webhook_deliveries SET state = 'sending', lease_until = ${lease}, updated_at = ${nowIso}, url = (SELECT url FROM t)
      WHERE id = ${deliveryId} AND state = 'pending' AND attempts = ${attempts} AND next_attempt_at <= ${dueBy} AND EXISTS (SELECT 1 FROM t)
        AND (${cap}::int IS NULL OR (SELECT count(*) FROM webhook_deliveries s WHERE s.account_id = webhook_deliveries.account_id AND s.state = 'sending') < ${cap}::int)
      RETURNING *
    ), att AS (
      INSERT INTO delivery_attempts (delivery_id, attempt, manual, outcome, started_at, url)
      SELECT d.id, d.attempts + 1, 0, 'sending', ${nowIso}, d.url FROM d
      RETURNING id
    )
    SELECT row_to_json(d.*) AS delivery, (SELECT row_to_json(t.*) FROM t) AS target, (SELECT id FROM att) AS attempt_id FROM d`.execute(
    db,
  );
  const row = rows[0];
  if (!row) return 'other';
  return { kind: 'attempt', attemptId: Number(row.attempt_id), delivery: row.delivery, target: row.target! };
}

/** A success's end in one statement: the attempt's log row, the monitor's failing streak cleared, the delivery succeeded. */
export async function finishSucceededInOneStatement(db: Db, a: FinishedAttempt, health: WebhookHealth): Promise<void> {
  const { sent } = a;
  await sql`
    WITH a AS (
      UPDATE delivery_attempts SET outcome = 'succeeded', finished_at = ${a.finishedAt}, status_code = ${sent.status}, error = ${sent.error}, duration_ms = ${sent.durationMs}
      WHERE id = ${a.attemptId} RETURNING 1
    ), m AS (
      UPDATE monitors SET webhook_failing_since = NULL WHERE id = ${health.monitorId} AND webhook_failing_since IS NOT NULL RETURNING 1
    )
    UPDATE webhook_deliveries SET state = 'succeeded', attempts = ${a.attempts + 1}, next_attempt_at = NULL, lease_until = NULL, handed_until = NULL,
      last_status = ${sent.status}, last_error = ${sent.error}, updated_at = ${a.finishedAt}
    WHERE id = ${a.deliveryId} AND state = 'sending' AND attempts = ${a.attempts}`.execute(db);
}
