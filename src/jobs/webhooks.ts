/**
 * Sends jobs' webhook events from their outbox (../store/repos/job-events.ts), signed with both
 * schemes and through the guarded client like a monitor's deliveries (../monitors/deliver.ts),
 * on the same retry schedule, honouring Retry-After; 410 Gone stops the event's retries. Every
 * process's job runner runs passes; claims are conditional, so no attempt is made twice.
 */
import type { Engine } from '../engine/index.js';
import { DELIVERY_LEASE_MS, send, signature } from '../monitors/deliver.js';
import { retryDelayMs } from '../monitors/retry.js';
import type { Redactor } from '../redact.js';
import type { Store } from '../store/index.js';
import { claimDue, finishAttempt, type ClaimedEvent } from '../store/repos/job-events.js';

export interface JobWebhookOptions {
  store: Store;
  engine: Pick<Engine, 'http'>;
  redact: Redactor;
  retryBaseMs: number;
  maxAttempts: number;
  /** Events sent at once by this process. @default 16 */
  concurrency?: number;
  /** Of those, one account's at most. @default 4 */
  perAccount?: number;
}

/** One pass: claims what is due and sends it; resolves with the number of attempts made. */
export async function sendDueJobEvents(o: JobWebhookOptions): Promise<number> {
  const claimed = await claimDue(o.store.db, o.store.now(), o.concurrency ?? 16, o.perAccount ?? 4, DELIVERY_LEASE_MS);
  await Promise.all(claimed.map((e) => attempt(o, e)));
  return claimed.length;
}

async function attempt(o: JobWebhookOptions, e: ClaimedEvent): Promise<void> {
  const headers: Record<string, string> = e.headers ? JSON.parse(e.headers) : {};
  // A Firecrawl-shaped event also carries Firecrawl's header: the seed scheme's HMAC, keyed with the account's secret.
  if (!e.event.startsWith('job.')) headers['x-firecrawl-signature'] = signature(e.signing_secret, e.body);
  const sent = e.url
    ? await send(o, e.id, { url: e.url, body: e.body, headers, signing_secret: e.signing_secret, previous_signing_secret: e.previous_signing_secret, previous_secret_expires_at: e.previous_secret_expires_at })
    : { ok: false, status: null, error: 'the job has no webhook', durationMs: 0 };
  const doneMs = o.store.now().getTime();
  const exhausted = !sent.ok && (!e.url || sent.status === 410 || e.attempts >= o.maxAttempts);
  await finishAttempt(
    o.store.db,
    e,
    {
      state: sent.ok ? 'succeeded' : exhausted ? 'failed' : 'pending',
      status: sent.status,
      error: sent.error,
      // As for monitors: a later Retry-After moves the attempt on, an earlier one does not bring it forward.
      nextAttemptAt: sent.ok || exhausted ? null : new Date(doneMs + Math.max(sent.retryAfterMs ?? 0, retryDelayMs(e.attempts, o.retryBaseMs))).toISOString(),
    },
    new Date(doneMs).toISOString(),
  );
}
