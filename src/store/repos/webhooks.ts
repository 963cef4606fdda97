/**
 * The outbox: events written with the run that found them, one delivery per event, and one
 * row per attempt. A delivery is claimed for an attempt with a conditional UPDATE on its state
 * and attempt count, so two workers never make the same attempt.
 *
 * Split by what each part guards (./webhooks/): reads, the relay's hand-out, an attempt's claim
 * and end (portable, with PostgreSQL's one-statement paths beside them), and the outbox's writes.
 * This file keeps the names callers import.
 */
export { attemptsOf, deliveryTarget, getDelivery, listDeliveries, nextDueAt, staleSending } from './webhooks/reads.js';
export type { DeliveryTarget } from './webhooks/reads.js';
export { handDueDeliveries, releaseHanded } from './webhooks/hand-out.js';
export { CLAIM_SLACK_MS, type AttemptResult, type Claim, type WebhookHealth } from './webhooks/types.js';
export { claimAttempt } from './webhooks/attempt-claim.js';
export {
  disableWebhook,
  finishAttempt,
  finishManualAttempt,
  interruptAttempt,
  startManualAttempt,
} from './webhooks/attempt-finish.js';
export { replayFailed, writeEvent } from './webhooks/outbox.js';
