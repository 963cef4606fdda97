/**
 * The one error family of Trawl. Every failure the API can report is a `TrawlError`
 * with a contract code (API.md section 2); the HTTP layer turns it into the body in one
 * place (server/plugins/errors.ts). The engine throws these and knows nothing of HTTP,
 * but the status travels with the code so no caller has to map it again.
 */

export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, message: 'The request is not valid.' },
  unauthorized: { status: 401, message: 'A valid API key is required: send "Authorization: Bearer trawl_…".' },
  insufficient_credits: { status: 402, message: 'The account has no credits left.' },
  forbidden_target: { status: 403, message: 'The target address is not allowed.' },
  not_found: { status: 404, message: 'Not found.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'The request body must be JSON.' },
  invalid_schema: { status: 422, message: 'The schema is not valid.' },
  action_failed: { status: 422, message: 'A browser action could not be done.' },
  rate_limited: { status: 429, message: 'Too many requests.' },
  internal_error: { status: 500, message: 'Internal error.' },
  fetch_failed: { status: 502, message: 'The target could not be fetched.' },
  blocked: { status: 502, message: 'The target answered with a bot wall.' },
  timeout: { status: 504, message: 'The work exceeded its time budget.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * Codes whose body is exactly `{error}` (plus retry_after for rate_limited), per the interface.
 * (`unauthorized`'s cause — missing header, no "Bearer ", x-api-key, malformed, unknown or revoked
 * key — goes in its WWW-Authenticate header, RFC 6750's error_description: issue 43.)
 */
export const CODES_WITHOUT_DETAIL: ReadonlySet<ErrorCode> = new Set([
  'unauthorized',
  'insufficient_credits',
  'rate_limited',
  'internal_error',
]);

export interface TrawlErrorOptions {
  cause?: unknown;
  /** Extra body fields, e.g. `retry_after` for rate_limited. */
  fields?: Record<string, unknown>;
  /** Whether trying the same work again may succeed (queues use it to decide retries). */
  retryable?: boolean;
  /**
   * The work was done though it failed, so its credit is kept (a render that ran the caller's
   * steps: the page may have left the service through them).
   */
  charged?: boolean;
}

export class TrawlError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string;
  readonly fields: Record<string, unknown>;
  readonly retryable: boolean;
  readonly charged: boolean;

  constructor(code: ErrorCode, detail?: string, options: TrawlErrorOptions = {}) {
    super(detail ?? ERROR_CATALOGUE[code].message, { cause: options.cause });
    this.name = 'TrawlError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.detail = detail ?? ERROR_CATALOGUE[code].message;
    this.fields = options.fields ?? {};
    this.retryable = options.retryable ?? (this.status >= 500 && code !== 'blocked');
    this.charged = options.charged ?? false;
  }

  /** The same error, its credit kept (TrawlErrorOptions.charged). */
  keepCredit(): TrawlError {
    return new TrawlError(this.code, this.detail, {
      cause: this.cause,
      fields: this.fields,
      retryable: this.retryable,
      charged: true,
    });
  }

  /** The JSON body the API sends for this error. */
  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { error: this.code };
    if (!CODES_WITHOUT_DETAIL.has(this.code)) body.detail = this.detail;
    return { ...body, ...this.fields };
  }
}

export const invalidRequest = (detail: string) => new TrawlError('invalid_request', detail);
export const invalidSchema = (detail: string) => new TrawlError('invalid_schema', detail);
export const notFound = (detail: string) => new TrawlError('not_found', detail);
export const fetchFailed = (detail: string, cause?: unknown) =>
  new TrawlError('fetch_failed', detail, { cause, retryable: true });
export const forbiddenTarget = (detail: string) => new TrawlError('forbidden_target', detail, { retryable: false });
export const blocked = (detail: string) => new TrawlError('blocked', detail, { retryable: false });
export const timeoutError = (detail: string, cause?: unknown) =>
  new TrawlError('timeout', detail, { cause, retryable: true });

export function isTrawlError(e: unknown): e is TrawlError {
  return e instanceof TrawlError;
}
