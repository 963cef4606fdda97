/**
 * One HTTP exchange with the API, with the caller's AbortSignal, a per-attempt timeout and the
 * retry policy of retry.ts. Uses only the global `fetch` (or the one given), so it runs in Node,
 * Deno, Bun, browsers and workers alike.
 */
import { TrawlConnectionError, TrawlError, TrawlTimeoutError, type ErrorCode } from './errors.js';
import { parseRetryAfter, retryDelay, type RetryPolicy } from './retry.js';

/** Options every method takes as its last argument. */
export interface RequestOptions {
  /** Abort the call (also while it waits to retry); it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Give up on one attempt after this long (ms). @default the client's timeoutMs */
  timeoutMs?: number;
  /** Attempts after the first, for this call. @default the client's maxRetries */
  maxRetries?: number;
}

export interface RetryInfo {
  method: string;
  path: string;
  /** The attempt that failed (0 = the first). */
  attempt: number;
  delayMs: number;
  error: TrawlError;
}

export interface TransportOptions extends RetryPolicy {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  fetch: typeof fetch;
  headers: Record<string, string>;
  onRetry?: (info: RetryInfo) => void;
}

export interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Whether repeating the call can do its work twice; only then 502/503/504 and lost connections are retried. */
  idempotent: boolean;
}

const KNOWN_CODES = new Set<string>([
  'invalid_request',
  'unauthorized',
  'insufficient_credits',
  'forbidden_target',
  'not_found',
  'payload_too_large',
  'unsupported_media_type',
  'invalid_schema',
  'action_failed',
  'rate_limited',
  'internal_error',
  'fetch_failed',
  'blocked',
  'timeout',
]);

/** `error_description` of a Bearer challenge, if any. */
function challengeDescription(header: string | null): string | undefined {
  return header ? /error_description="([^"]*)"/.exec(header)?.[1] : undefined;
}

/** The error an answer of status ≥ 400 stands for. */
export function errorFromResponse(res: Response, text: string): TrawlError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const requestId = res.headers.get('x-request-id') ?? undefined;
  const b = (body && typeof body === 'object' ? body : {}) as {
    error?: unknown;
    detail?: unknown;
    retry_after?: unknown;
  };
  // A negative wait is no wait: it would turn the retries into a burst against a limited server.
  const retryAfter =
    typeof b.retry_after === 'number' && b.retry_after >= 0
      ? b.retry_after
      : parseRetryAfter(res.headers.get('retry-after'));
  if (typeof b.error === 'string' && KNOWN_CODES.has(b.error)) {
    return new TrawlError({
      status: res.status,
      code: b.error as ErrorCode,
      // A 401's cause comes in its WWW-Authenticate header (RFC 6750's error_description).
      detail: typeof b.detail === 'string' ? b.detail : challengeDescription(res.headers.get('www-authenticate')),
      retryAfter,
      requestId,
      body,
    });
  }
  // Not the API's body: a proxy or load balancer answered. Keep the start of it for the reader.
  const code: ErrorCode = res.status === 429 ? 'rate_limited' : 'unexpected_response';
  const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return new TrawlError({
    status: res.status,
    code,
    detail: `HTTP ${res.status}${excerpt ? `: ${excerpt}` : ''}`,
    retryAfter,
    requestId,
    body: body ?? text,
  });
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A signal for one attempt: the caller's, plus our timeout. `timedOut()` tells which fired. */
function attemptSignal(outer: AbortSignal | undefined, timeoutMs: number) {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(outer!.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  const timer =
    timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new TrawlTimeoutError(timeoutMs));
        }, timeoutMs)
      : undefined;
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

export class Transport {
  readonly #o: TransportOptions;

  constructor(options: TransportOptions) {
    this.#o = options;
  }

  url(path: string, query?: Call['query']): string {
    const u = new URL(`${this.#o.baseUrl.replace(/\/+$/, '')}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.href;
  }

  async request<T>(call: Call, options: RequestOptions = {}): Promise<T> {
    const policy = { ...this.#o, maxRetries: options.maxRetries ?? this.#o.maxRetries };
    const timeoutMs = options.timeoutMs ?? this.#o.timeoutMs;
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.#o.headers,
      authorization: `Bearer ${this.#o.apiKey}`,
    };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const url = this.url(call.path, call.query);
    for (let attempt = 0; ; attempt++) {
      if (options.signal?.aborted) throw options.signal.reason;
      const outcome = await this.#attempt<T>(url, call.method, headers, body, timeoutMs, options.signal);
      if (!(outcome instanceof TrawlError)) return outcome.value;
      const error = outcome;
      const delayMs = retryDelay(error, attempt, call.idempotent, policy);
      if (delayMs === undefined) throw error;
      this.#o.onRetry?.({ method: call.method, path: call.path, attempt, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }

  /** One attempt: the parsed answer, or the TrawlError it stands for (the caller's abort is thrown). */
  async #attempt<T>(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
    outer?: AbortSignal,
  ): Promise<{ value: T } | TrawlError> {
    const a = attemptSignal(outer, timeoutMs);
    try {
      const res = await this.#o.fetch(url, { method, headers, body, signal: a.signal });
      // The timeout also covers reading the body: a server that stalls mid-answer is cut off too.
      const text = await res.text();
      if (res.status >= 400) return errorFromResponse(res, text);
      try {
        return { value: JSON.parse(text) as T };
      } catch (cause) {
        return new TrawlError({
          status: res.status,
          code: 'unexpected_response',
          detail: `HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`,
          requestId: res.headers.get('x-request-id') ?? undefined,
          cause,
        });
      }
    } catch (e) {
      if (outer?.aborted) throw outer.reason;
      if (a.timedOut()) return new TrawlTimeoutError(timeoutMs);
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      return new TrawlConnectionError(
        `${method} ${url} got no answer: ${cause?.code ?? cause?.message ?? (e as Error).message}`,
        e,
      );
    } finally {
      a.done();
    }
  }
}
