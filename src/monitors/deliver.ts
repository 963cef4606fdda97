/**
 * A monitor's webhook deliveries: each attempt goes to the monitor's current webhook URL, sent by
 * the one outbox protocol (../webhooks/: signed at send time with both schemes, through the
 * engine's guarded client), and is logged with where it went. The attempt row is written before
 * the request and finished after it. A failure is retried on the schedule of ../webhooks/retry.ts
 * (or later, when a 429/503's Retry-After says so); 410 Gone disables the monitor's webhook at once, and so does an endpoint
 * that has failed without a 2xx for TRAWL_WEBHOOK_DISABLE_AFTER_HOURS (3 days).
 */
import type { Engine } from '../engine/index.js';
import { webhookAttempts, webhookDeliveriesEnded } from '../metrics.js';
import type { Redactor } from '../redact.js';
import { channels as channelsRepo, webhooks as repo, type Store, type WebhookDelivery } from '../store/index.js';
import type { Sealer } from '../sealed.js';
import type { NotificationChannel } from '../store/index.js';
import { CHANNEL_SEAL_PURPOSE, sendToChannel, type ChannelSecret } from '../webhooks/channels/index.js';
import { writeChannelDisabledEvent } from './events.js';
import { notifyData } from './notify.js';
import { DELIVERY_LEASE_MS, nextStep, retryDelayMs, send, type AttemptResult, type Sent } from '../webhooks/index.js';

/** Failing this long without a 2xx disables a monitor's webhook (contract: 3 days). */
export const DISABLE_AFTER_MS = 72 * 3600_000;
/** A delivery attempt handed to the queue is not handed again (by any relay) for this long. */
export const HANDED_MS = 60_000;

export interface DeliveryDeps {
  store: Store;
  engine: Pick<Engine, 'http'>;
  retryBaseMs: number;
  maxAttempts: number;
  /** Removes configured secrets from the stored attempt error (e.g. proxy credentials). */
  redact: Redactor;
  /** @default DISABLE_AFTER_MS */
  disableAfterMs?: number;
  /** The clock, in ms (tests move it on instead of waiting days). @default Date.now */
  now?: () => number;
  /** Deliveries one account may have in flight at once (TRAWL_ACCOUNT_CONCURRENCY). @default unbounded */
  accountCap?: number;
  /** What a notification channel's message needs (absent: such messages fail, saying why). */
  notify?: NotifyDeps;
}

export interface NotifyDeps {
  /** Opens a channel's sealed secret (TRAWL_SECRET_KEY). */
  sealer?: Sealer;
  smtpUrl?: string;
  smtpFrom?: string;
  telegramApiUrl: string;
  /** Where the dashboard is (TRAWL_PUBLIC_URL, else the service's own address), for the run's link. */
  publicUrl: () => string;
}

/** One message of a channel: its secret opened now (a rotated key still opens it), sent by the channel's sender. */
async function sendToChannelOf(
  deps: DeliveryDeps,
  channel: NotificationChannel,
  target: { body: string; run_id: string },
  monitorId: string,
  key: string,
): Promise<Sent> {
  const n = deps.notify;
  if (!n?.sealer)
    return {
      ok: false,
      status: null,
      error: 'not sent: this service has no TRAWL_SECRET_KEY to open the channel with',
      durationMs: 0,
    };
  let secret: ChannelSecret;
  try {
    secret = JSON.parse(n.sealer.open(channel.secret, CHANNEL_SEAL_PURPOSE)) as ChannelSecret;
  } catch (e) {
    return {
      ok: false,
      status: null,
      error: `not sent: the channel's secret does not open (${(e as Error).message})`,
      durationMs: 0,
    };
  }
  return sendToChannel(
    {
      engine: deps.engine,
      redact: deps.redact,
      smtpUrl: n.smtpUrl,
      smtpFrom: n.smtpFrom,
      telegramApiUrl: n.telegramApiUrl,
    },
    secret,
    channel,
    notifyData(target.body, target.run_id, n.publicUrl(), await channelsRepo.monitorTitle(deps.store.db, monitorId)),
    key,
  );
}

/**
 * Make attempt `attempts + 1` of a pending, due delivery if it is still pending with that many
 * attempts behind it (the claim); otherwise do nothing. Returns whether the delivery was handled.
 */
export async function attemptDelivery(deps: DeliveryDeps, deliveryId: string, attempts: number): Promise<boolean> {
  // Leases and due times on the database's clock (tests may inject one).
  const clock = deps.now ?? (() => deps.store.now().getTime());
  const startedAt = new Date(clock());
  const claimed = await repo.claimAttempt(
    deps.store.db,
    deliveryId,
    attempts,
    startedAt,
    DELIVERY_LEASE_MS,
    deps.accountCap,
  );
  if (!claimed || claimed.kind === 'busy') return false;
  if (claimed.kind === 'not_sent') {
    webhookDeliveriesEnded.inc({ state: 'failed' });
    return true;
  }
  const { delivery: d, target, channel } = claimed;
  // The idempotency key of a channel's message: one per event and channel (a unique index), sent with it.
  const sent = channel
    ? await sendToChannelOf(deps, channel, target, d.monitor_id, `${d.event_id}.${channel.id}`)
    : await send(deps, d.event_id, target);
  const doneMs = clock();
  // Attempts of the current schedule (a replay starts a new one).
  const failed = attempts + 1 - Number(d.schedule_offset ?? 0);
  const gone = sent.status === 410;
  const step = nextStep(sent, {
    failed,
    maxAttempts: deps.maxAttempts,
    retryBaseMs: deps.retryBaseMs,
    doneMs,
    giveUp: gone,
  });
  await repo.finishAttempt(
    deps.store.db,
    {
      deliveryId,
      attempts,
      attemptId: claimed.attemptId,
      sent,
      finishedAt: new Date(doneMs).toISOString(),
      ...step,
    },
    {
      monitorId: d.monitor_id,
      attemptAt: startedAt.toISOString(),
      gone,
      disableIfFailingSince: new Date(doneMs - (deps.disableAfterMs ?? DISABLE_AFTER_MS)).toISOString(),
      channelId: channel?.id,
      onChannelDisabled: channel
        ? (trx, reason) =>
            writeChannelDisabledEvent(trx, {
              monitorId: d.monitor_id,
              accountId: d.account_id,
              runId: target.run_id,
              at: new Date(doneMs).toISOString(),
              channelId: channel.id,
              channelName: channel.name,
              reason,
            })
        : undefined,
    },
  );
  countAttempt(sent, 'schedule');
  if (step.state !== 'pending') webhookDeliveriesEnded.inc({ state: step.state });
  return true;
}

/**
 * Deliveries whose sender died mid-attempt: the attempt's outcome is unknown, so it counts as
 * failed (`interrupted`) and the next one is scheduled; receivers de-duplicate by event id.
 */
export async function recoverInterrupted(deps: DeliveryDeps, stale: WebhookDelivery[]): Promise<void> {
  const now = (deps.now ?? (() => deps.store.now().getTime()))();
  for (const d of stale) {
    const failed = d.attempts + 1 - Number(d.schedule_offset ?? 0);
    const exhausted = failed >= deps.maxAttempts;
    const taken = await repo.interruptAttempt(
      deps.store.db,
      d,
      {
        state: exhausted ? 'failed' : 'pending',
        nextAttemptAt: exhausted ? null : new Date(now + retryDelayMs(failed, deps.retryBaseMs)).toISOString(),
      },
      new Date(now).toISOString(),
    );
    if (!taken) continue;
    webhookAttempts.inc({ outcome: 'interrupted', trigger: 'schedule' });
    if (exhausted) webhookDeliveriesEnded.inc({ state: 'failed' });
  }
}

/**
 * Send an event again now (same body and id; fresh timestamp and signatures; the monitor's
 * current webhook URL), logged as a new, manual attempt. A success ends pending retries; a
 * failure leaves the automatic schedule as it was. Sent even while the webhook is disabled:
 * the owner asked for it (a success does not re-enable; a PATCH does).
 */
export async function redeliver(deps: DeliveryDeps, d: WebhookDelivery): Promise<void> {
  const db = deps.store.db;
  const target = await repo.deliveryTarget(db, d.event_id);
  const started = new Date((deps.now ?? Date.now)()).toISOString();
  const attemptId = await repo.startManualAttempt(db, d.id, target?.url ?? d.url, started);
  const sent: Sent = target
    ? await send(deps, d.event_id, target)
    : { ok: false, status: null, error: 'the event is gone', durationMs: 0 };
  await repo.finishManualAttempt(
    db,
    { id: d.id, monitorId: d.monitor_id },
    attemptId,
    sent,
    new Date((deps.now ?? Date.now)()).toISOString(),
  );
  countAttempt(sent, 'manual');
}

/** An attempt's outcome: the receiver took it (2xx), answered something else, or could not be reached. */
function countAttempt(sent: AttemptResult, trigger: 'schedule' | 'manual'): void {
  webhookAttempts.inc({ outcome: sent.ok ? 'delivered' : sent.status !== null ? 'rejected' : 'unreachable', trigger });
}
