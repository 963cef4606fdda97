/**
 * Sends jobs' webhook events from their outbox (../store/repos/job-events.ts) by the one outbox
 * protocol a monitor's deliveries use too (../webhooks/: signed with both schemes, through the
 * guarded client, on the same retry schedule), honouring Retry-After; 410 Gone stops the event's retries. Every
 * process's job runner sends; claims are conditional, so no attempt is made twice.
 */
import type { Engine } from '../engine/index.js';
import type { Redactor } from '../redact.js';
import type { Store } from '../store/index.js';
import { claimDue, finishAttempt, type ClaimedEvent } from '../store/repos/job-events.js';
import { DELIVERY_LEASE_MS, nextStep, send, signature } from '../webhooks/index.js';

export interface JobWebhookOptions {
  store: Store;
  engine: Pick<Engine, 'http'>;
  redact: Redactor;
  retryBaseMs: number;
  maxAttempts: number;
  /** Attempts one account may have in flight at once, across every process. @default 4 */
  perAccount?: number;
}

/** Claims up to `limit` due events for attempts (see claimDue: fair between accounts). */
export const claimJobEvents = (o: JobWebhookOptions, limit: number): Promise<ClaimedEvent[]> =>
  claimDue(o.store.db, o.store.now(), limit, o.perAccount ?? 4, DELIVERY_LEASE_MS);

/**
 * Sends due events in lanes: `lanes` attempts in flight at once, a lane taken again as soon as
 * its attempt ends (a slow receiver holds its own lanes only, never a whole pass of others'
 * events). Resolves when `running()` turns false and the attempts in flight ended.
 */
export async function sendJobEvents(
  o: JobWebhookOptions & { lanes?: number; pollMs: number; running: () => boolean; onError?: (err: unknown) => void },
): Promise<void> {
  const lanes = o.lanes ?? 16;
  const inFlight = new Set<Promise<void>>();
  while (o.running()) {
    let claimed = 0;
    if (inFlight.size < lanes) {
      try {
        const events = await claimJobEvents(o, lanes - inFlight.size);
        claimed = events.length;
        for (const e of events) {
          const p: Promise<void> = attempt(o, e)
            .catch((err) => o.onError?.(err))
            .finally(() => inFlight.delete(p));
          inFlight.add(p);
        }
      } catch (err) {
        o.onError?.(err);
      }
    }
    if (claimed && inFlight.size < lanes) continue;
    // Nothing due (or every lane busy): look again when an attempt ends, or after a poll.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((r) => (timer = setTimeout(r, o.pollMs))), ...inFlight]);
    clearTimeout(timer);
  }
  await Promise.allSettled([...inFlight]);
}

async function attempt(o: JobWebhookOptions, e: ClaimedEvent): Promise<void> {
  const headers: Record<string, string> = e.headers ? JSON.parse(e.headers) : {};
  // A Firecrawl-shaped event also carries Firecrawl's header: the seed scheme's HMAC, keyed with the account's secret.
  if (!e.event.startsWith('job.')) headers['x-firecrawl-signature'] = signature(e.signing_secret, e.body);
  const sent = e.url
    ? await send(o, e.id, {
        url: e.url,
        body: e.body,
        headers,
        signing_secret: e.signing_secret,
        previous_signing_secret: e.previous_signing_secret,
        previous_secret_expires_at: e.previous_secret_expires_at,
      })
    : { ok: false, status: null, error: 'the job has no webhook', durationMs: 0 };
  const doneMs = o.store.now().getTime();
  // Counted from the last replay: a replayed event gets the whole schedule again.
  const tries = e.attempts - e.schedule_offset;
  const step = nextStep(sent, {
    failed: tries,
    maxAttempts: o.maxAttempts,
    retryBaseMs: o.retryBaseMs,
    doneMs,
    giveUp: !e.url || sent.status === 410,
  });
  await finishAttempt(
    o.store.db,
    e,
    { ...step, status: sent.status, error: sent.error },
    new Date(doneMs).toISOString(),
  );
}
