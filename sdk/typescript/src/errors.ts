/**
 * The SDK's errors. Every failure the API reports is one `TrawlError` carrying the HTTP status,
 * the contract's `error` code and its `detail` (plus `retryAfter` for 429, `errors` for a body
 * with several faults): callers switch on `code` (also readable as `error`, the body's and the
 * Python SDK's name), not on the class. Two subclasses cover what never reached an answer (the connection,
 * the client's own timeout); webhook checks have their own class.
 */

/** The contract's error codes (shared/spec/API.md section 2), and the SDK's own for no answer. */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'insufficient_credits'
  | 'forbidden_target'
  | 'not_found'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'invalid_schema'
  | 'action_failed'
  | 'rate_limited'
  | 'internal_error'
  | 'fetch_failed'
  | 'blocked'
  | 'timeout'
  /** An answer that is not the API's JSON (a proxy's error page). */
  | 'unexpected_response'
  /** No answer: connection refused or reset, DNS failure. */
  | 'connection_error'
  /** No answer within the SDK's `timeoutMs`. */
  | 'client_timeout';

/** One fault of a request body, when it had several (the first is also `detail`). */
export interface FieldError {
  field: string;
  detail: string;
}

export interface TrawlErrorInit {
  status: number;
  code: ErrorCode;
  detail?: string;
  retryAfter?: number;
  requestId?: string;
  body?: unknown;
  cause?: unknown;
}

export class TrawlError extends Error {
  /** HTTP status; 0 when no answer came. */
  readonly status: number;
  readonly code: ErrorCode;
  /** The server's sentence naming the field or the cause, when it sent one. */
  readonly detail?: string;
  /** Seconds to wait before trying again (429: `retry_after` of the body, else `Retry-After`). */
  readonly retryAfter?: number;
  /** `X-Request-Id` of the answer: quote it when reporting a problem. */
  readonly requestId?: string;
  /** The parsed error body as sent. */
  readonly body?: unknown;
  /** Every fault of the body, when there were two or more (`errors` of a 422). */
  readonly errors?: FieldError[];

  constructor(init: TrawlErrorInit) {
    super(init.detail ? `${init.code}: ${init.detail}` : `${init.code} (HTTP ${init.status})`, { cause: init.cause });
    this.name = 'TrawlError';
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.retryAfter = init.retryAfter;
    this.requestId = init.requestId;
    this.body = init.body;
    const all = (init.body as { errors?: unknown } | undefined)?.errors;
    if (Array.isArray(all)) this.errors = all as FieldError[];
  }

  /** The contract's error code under the body's own name, as the Python SDK has it (same as `code`). */
  get error(): ErrorCode {
    return this.code;
  }
}

/** The request got no answer (refused, reset, DNS). Whether the server did the work is unknown. */
export class TrawlConnectionError extends TrawlError {
  constructor(detail: string, cause?: unknown) {
    super({ status: 0, code: 'connection_error', detail, cause });
    this.name = 'TrawlConnectionError';
  }
}

/** No answer within the SDK's `timeoutMs` (the server's own budget overrun is a 504 `timeout`). */
export class TrawlTimeoutError extends TrawlError {
  constructor(timeoutMs: number, option = 'timeoutMs') {
    super({ status: 0, code: 'client_timeout', detail: `no answer within ${timeoutMs} ms (the ${option} option)` });
    this.name = 'TrawlTimeoutError';
  }
}

export type WebhookFailure =
  'missing_headers' | 'invalid_secret' | 'invalid_timestamp' | 'stale_timestamp' | 'invalid_signature' | 'invalid_body';

/** A delivery that is not proven to come from Trawl: answer it with 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookFailure;
  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}
