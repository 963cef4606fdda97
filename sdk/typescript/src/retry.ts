/**
 * When to try a request again, and how long to wait first.
 *
 * - 429 means the request was not processed, so any call may be repeated: after `retry_after`
 *   seconds from the body, else the `Retry-After` header (seconds or an HTTP date).
 * - 502, 503, 504 and a lost connection may mean the work was done (a proxy timed out while
 *   the server charged a credit), so only calls that are safe to repeat are retried, after an
 *   exponential backoff with jitter.
 */
import { TrawlError } from './errors.js';

export interface RetryPolicy {
  /** Attempts after the first. */
  maxRetries: number;
  /** First backoff step; each further step doubles. */
  baseDelayMs: number;
  /** Longest backoff step, and the longest `Retry-After` honoured (a longer one is thrown at once). */
  maxDelayMs: number;
}

/** Seconds from a `Retry-After` header: whole seconds, or an HTTP date. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

const TRANSIENT = new Set([502, 503, 504]);

/**
 * The wait before attempt `attempt + 1` (attempt 0 is the first), or undefined when the error
 * is final. `idempotent` says whether repeating the call can do the work twice.
 */
export function retryDelay(
  error: TrawlError,
  attempt: number,
  idempotent: boolean,
  policy: RetryPolicy,
  random = Math.random,
): number | undefined {
  if (attempt >= policy.maxRetries) return undefined;
  if (error.status === 429) {
    const ms = (error.retryAfter ?? 1) * 1000;
    // A wait longer than the caller allows is theirs to schedule: they get the error and its retryAfter.
    return ms > policy.maxDelayMs ? undefined : ms;
  }
  const transient = TRANSIENT.has(error.status) || error.code === 'connection_error';
  if (!transient || !idempotent) return undefined;
  // "Equal jitter": half the step fixed, half random, so retries of many clients spread out
  // while each wait still grows.
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(step / 2 + random() * (step / 2));
}
