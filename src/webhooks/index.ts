/**
 * The one outbox protocol, shared by monitor events (../monitors/deliver.ts) and job events
 * (../jobs/webhooks.ts): signing, one attempt's send, the retry schedule and body limit. The
 * outboxes' tables and their fair claims stay in the store (../store/repos/webhooks/,
 * ../store/repos/job-events.ts, both over ../store/repos/fair-claim.ts).
 */
export { MAX_BODY_BYTES } from './body.js';
export { MAX_RETRY_AFTER_MS, SCHEDULE_MS, nextStep, retryAfterMs, retryDelayMs, type NextStep } from './retry.js';
export {
  DELIVERY_LEASE_MS,
  DELIVERY_TIMEOUT_MS,
  send,
  type AttemptResult,
  type SendDeps,
  type SendTarget,
  type Sent,
} from './send.js';
export { USER_AGENT, signature, standardSignature, webhookHeaders, type Secrets } from './signing.js';
