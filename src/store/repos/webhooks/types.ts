/** What the delivery repos hand each other: a claim, its window, an attempt's outcome and its effect on the webhook. */
import type { NotificationChannel, WebhookDelivery } from '../../tables.js';
import type { Db } from '../accounts.js';
import type { DeliveryTarget } from './reads.js';

/** How early (by this process's clock) an attempt may be claimed: the error of a clock estimate, not a schedule step. */
export const CLAIM_SLACK_MS = 1000;

export type Claim =
  | {
      kind: 'attempt';
      attemptId: number;
      delivery: WebhookDelivery;
      target: DeliveryTarget;
      /** Set for a channel's message: the channel it goes to (its sealed secret opened by the sender). */
      channel?: NotificationChannel;
    }
  /** Failed without an attempt: the event is gone, or the monitor's webhook is disabled. */
  | { kind: 'not_sent'; reason: string }
  /** Not now: its account already has `accountCap` deliveries being sent; released to the relay, which hands it out when there is room. */
  | { kind: 'busy' };

/** One claim's times and cap, as the database compares them. */
export interface ClaimWindow {
  nowIso: string;
  /**
   * Due by this process's estimate of the database clock, give or take its error: a delivery
   * handed over the moment another process wrote it is not refused (and left for the relay's
   * next hand-out a minute later) because the two estimates differ by a few milliseconds.
   */
  dueBy: string;
  lease: string;
  /** Deliveries one account may have being sent; null: unbounded. */
  cap: number | null;
}

export const claimWindow = (now: Date, leaseMs: number, accountCap: number): ClaimWindow => ({
  nowIso: now.toISOString(),
  dueBy: new Date(now.getTime() + CLAIM_SLACK_MS).toISOString(),
  lease: new Date(now.getTime() + leaseMs).toISOString(),
  cap: Number.isFinite(accountCap) ? accountCap : null,
});

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** How a finished attempt changes its monitor's webhook: a 2xx clears the failing streak, a failure extends it, 410 disables. */
export interface WebhookHealth {
  monitorId: string;
  /** When the attempt started (a streak's first failure). */
  attemptAt: string;
  gone: boolean;
  /** A streak that began at or before this disables the webhook. */
  disableIfFailingSince: string;
  /** A channel's message: the streak is the channel's, and disabling it is the channel's. */
  channelId?: string | null;
  /** Told in the transaction that disabled the channel (writes the event that says so). */
  onChannelDisabled?: (trx: Db, reason: string) => Promise<unknown>;
}

/** A claimed attempt's end, as finishAttempt takes it. */
export interface FinishedAttempt {
  deliveryId: string;
  attempts: number;
  attemptId: number;
  sent: AttemptResult;
  finishedAt: string;
  state: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: string | null;
}
