/**
 * Webhook deliveries: sign the stored body with the account's current secret, POST it through
 * the engine's guarded client (SSRF check on every attempt), and record the attempt. An attempt
 * row is written before the request and finished after it; a delivery fails over to its next
 * attempt with exponential backoff and jitter until it succeeds or runs out of attempts.
 */
import { createHmac } from 'node:crypto';
import type { Engine } from '../engine/index.js';
import { isTrawlError } from '../errors.js';
import type { Redactor } from '../redact.js';
import type { Store, WebhookDelivery } from '../store/index.js';

/** Any 2xx within this time is success (contract section 5). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A delivery in `sending` longer than this lost its sender (process died mid-attempt). */
export const DELIVERY_LEASE_MS = DELIVERY_TIMEOUT_MS * 2;
export const USER_AGENT = 'Trawl-Webhooks/1';
/** A delivery attempt handed to the queue is not handed again (by any relay) for this long. */
export const HANDED_MS = 60_000;

export interface DeliveryDeps {
  store: Store;
  engine: Pick<Engine, 'http'>;
  retryBaseMs: number;
  maxAttempts: number;
  /** Removes configured secrets from the stored attempt error (e.g. proxy credentials). */
  redact: Redactor;
}

export const signature = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;

/** Delay before attempt `n + 1` after `n` failed attempts: base · 2^(n−1), plus up to 10 % jitter (never earlier). */
export function retryDelayMs(failedAttempts: number, baseMs: number, random = Math.random): number {
  const delay = baseMs * 2 ** Math.max(0, failedAttempts - 1);
  return Math.round(delay * (1 + 0.1 * random()));
}

interface Sent {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

async function send(deps: DeliveryDeps, url: string, body: string, secret: string): Promise<Sent> {
  const started = Date.now();
  try {
    const res = await deps.engine.http.request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, 'x-service-signature': signature(secret, body), accept: '*/*' },
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxBytes: 1024 * 1024,
      followRedirect: () => false,
    });
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status: res.status, error: ok ? null : `the receiver answered ${res.status}`, durationMs: Date.now() - started };
  } catch (e) {
    const status = isTrawlError(e) && typeof e.fields.status === 'number' ? e.fields.status : null;
    const error = status ? `the receiver redirected (${status}); a redirect is not a success` : isTrawlError(e) ? `${e.code}: ${e.detail}` : (e as Error).message;
    return { ok: false, status, error: deps.redact(error), durationMs: Date.now() - started };
  }
}

async function payload(deps: DeliveryDeps, d: WebhookDelivery): Promise<{ body: string; secret: string } | undefined> {
  const row = await deps.store.db
    .selectFrom('webhook_events')
    .innerJoin('accounts', 'accounts.id', 'webhook_events.account_id')
    .select(['webhook_events.body', 'accounts.signing_secret'])
    .where('webhook_events.id', '=', d.event_id)
    .executeTakeFirst();
  return row ? { body: row.body, secret: row.signing_secret } : undefined;
}

/**
 * Make attempt `attempts + 1` of a pending, due delivery if it is still pending with that many
 * attempts behind it (the claim); otherwise do nothing. Returns whether an attempt was made.
 */
export async function attemptDelivery(deps: DeliveryDeps, deliveryId: string, attempts: number): Promise<boolean> {
  const db = deps.store.db;
  const now = deps.store.now();
  const claimed = await db.transaction().execute(async (trx) => {
    const d = await trx
      .updateTable('webhook_deliveries')
      .set({ state: 'sending', lease_until: new Date(now.getTime() + DELIVERY_LEASE_MS).toISOString(), updated_at: now.toISOString() })
      .where('id', '=', deliveryId)
      .where('state', '=', 'pending')
      .where('attempts', '=', attempts)
      .where('next_attempt_at', '<=', now.toISOString())
      .returningAll()
      .executeTakeFirst();
    if (!d) return undefined;
    const row = await trx
      .insertInto('delivery_attempts')
      .values({ delivery_id: deliveryId, attempt: attempts + 1, manual: 0, outcome: 'sending', started_at: now.toISOString() })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { attemptId: row.id, delivery: d };
  });
  if (claimed === undefined) return false;
  const p = await payload(deps, claimed.delivery);
  const sent: Sent = p ? await send(deps, claimed.delivery.url, p.body, p.secret) : { ok: false, status: null, error: 'the event is gone', durationMs: 0 };
  const done = deps.store.now();
  const failed = attempts + 1;
  const exhausted = !sent.ok && failed >= deps.maxAttempts;
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('delivery_attempts')
      .set({ outcome: sent.ok ? 'succeeded' : 'failed', finished_at: done.toISOString(), status_code: sent.status, error: sent.error, duration_ms: sent.durationMs })
      .where('id', '=', claimed.attemptId)
      .execute();
    await trx
      .updateTable('webhook_deliveries')
      .set({
        state: sent.ok ? 'succeeded' : exhausted ? 'failed' : 'pending',
        attempts: failed,
        next_attempt_at: sent.ok || exhausted ? null : new Date(done.getTime() + retryDelayMs(failed, deps.retryBaseMs)).toISOString(),
        lease_until: null,
        // The next attempt is a new hand-out for the relay.
        handed_until: null,
        last_status: sent.status,
        last_error: sent.error,
        updated_at: done.toISOString(),
      })
      .where('id', '=', deliveryId)
      .where('state', '=', 'sending')
      .where('attempts', '=', attempts)
      .execute();
  });
  return true;
}

/**
 * Deliveries whose sender died mid-attempt: the attempt's outcome is unknown, so it counts as
 * failed (`interrupted`) and the next one is scheduled; receivers de-duplicate by event id.
 */
export async function recoverInterrupted(deps: DeliveryDeps, stale: WebhookDelivery[]): Promise<void> {
  const now = deps.store.now();
  for (const d of stale) {
    const failed = d.attempts + 1;
    const exhausted = failed >= deps.maxAttempts;
    await deps.store.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('webhook_deliveries')
        .set({
          state: exhausted ? 'failed' : 'pending',
          attempts: failed,
          next_attempt_at: exhausted ? null : new Date(now.getTime() + retryDelayMs(failed, deps.retryBaseMs)).toISOString(),
          lease_until: null,
        // The next attempt is a new hand-out for the relay.
        handed_until: null,
          last_status: null,
          last_error: 'interrupted: the process sending it stopped; outcome unknown',
          updated_at: now.toISOString(),
        })
        .where('id', '=', d.id)
        .where('state', '=', 'sending')
        .where('attempts', '=', d.attempts)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return;
      await trx
        .updateTable('delivery_attempts')
        .set({ outcome: 'interrupted', finished_at: now.toISOString(), error: 'the process sending it stopped; outcome unknown' })
        .where('delivery_id', '=', d.id)
        .where('outcome', '=', 'sending')
        .where('manual', '=', 0)
        .execute();
    });
  }
}

/**
 * Send an event again now (same body and id), logged as a new, manual attempt. A success ends
 * pending retries; a failure leaves the automatic schedule as it was.
 */
export async function redeliver(deps: DeliveryDeps, d: WebhookDelivery): Promise<void> {
  const db = deps.store.db;
  const started = new Date();
  const last = await db.selectFrom('delivery_attempts').select((eb) => eb.fn.max('attempt').as('n')).where('delivery_id', '=', d.id).executeTakeFirst();
  const attempt = Number(last?.n ?? 0) + 1;
  const row = await db
    .insertInto('delivery_attempts')
    .values({ delivery_id: d.id, attempt, manual: 1, outcome: 'sending', started_at: started.toISOString() })
    .returning('id')
    .executeTakeFirstOrThrow();
  const p = await payload(deps, d);
  const sent: Sent = p ? await send(deps, d.url, p.body, p.secret) : { ok: false, status: null, error: 'the event is gone', durationMs: 0 };
  const done = new Date().toISOString();
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('delivery_attempts')
      .set({ outcome: sent.ok ? 'succeeded' : 'failed', finished_at: done, status_code: sent.status, error: sent.error, duration_ms: sent.durationMs })
      .where('id', '=', row.id)
      .execute();
    const update = trx.updateTable('webhook_deliveries').where('id', '=', d.id);
    if (sent.ok) {
      await update.set({ state: 'succeeded', next_attempt_at: null, last_status: sent.status, last_error: null, updated_at: done }).where('state', 'in', ['pending', 'failed']).execute();
    } else {
      await update.set({ last_status: sent.status, last_error: sent.error, updated_at: done }).where('state', '<>', 'sending').execute();
    }
  });
}
