/** @trawl/sdk: a typed client for the Trawl API and a verifier for its webhooks. */
export { Trawl, type TrawlOptions } from './client.js';
export type { RequestOptions, RetryInfo } from './http.js';
export type { JobPagesOptions, WaitForJobOptions } from './jobs.js';
export {
  TrawlError,
  TrawlConnectionError,
  TrawlTimeoutError,
  WebhookVerificationError,
  type ErrorCode,
  type WebhookFailure,
} from './errors.js';
export { verifyWebhook, type VerifyWebhookOptions, type WebhookHeaders } from './webhooks.js';
export type * from './types.js';
