/**
 * One attempt of a webhook event, a monitor's or a job's: a POST of the stored body to the
 * receiver's current URL, signed at send time with both schemes (./signing.ts), through the
 * engine's guarded client (SSRF check on every attempt), without following redirects. A failure
 * is an outcome, never a throw; its error has configured secrets removed.
 */
import type { Engine } from '../engine/index.js';
import { isTrawlError } from '../errors.js';
import type { Redactor } from '../redact.js';
import type { AttemptResult } from '../store/repos/webhooks.js';
import { retryAfterMs } from './retry.js';
import { webhookHeaders } from './signing.js';

/** Any 2xx within this time is success (contract section 5). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** An attempt in `sending` longer than this lost its sender (process died mid-attempt). */
export const DELIVERY_LEASE_MS = DELIVERY_TIMEOUT_MS * 2;
/** Most of a receiver's answer read (the rest is not needed: only the status counts). */
const MAX_ANSWER_BYTES = 1024 * 1024;

export type { AttemptResult };

export interface Sent extends AttemptResult {
  /** From a 429/503 answer's Retry-After. */
  retryAfterMs?: number;
}

/** Where one attempt goes and what it is signed with (a monitor's delivery or a job's event). */
export interface SendTarget {
  url: string;
  body: string;
  signing_secret: string;
  previous_signing_secret: string | null;
  previous_secret_expires_at: string | null;
  /** More headers (a caller's own); the protocol's own headers win over any of the same name. */
  headers?: Record<string, string>;
}

export interface SendDeps {
  engine: Pick<Engine, 'http'>;
  /** Removes configured secrets from the attempt's error (e.g. proxy credentials). */
  redact: Redactor;
  /** The clock the signature's timestamp is read from, in ms. @default Date.now */
  now?: () => number;
}

/** One signed POST through the guarded client; never throws (a failure is an outcome). */
export async function send(deps: SendDeps, eventId: string, t: SendTarget): Promise<Sent> {
  const started = Date.now();
  const nowMs = (deps.now ?? Date.now)();
  try {
    const res = await deps.engine.http.request(t.url, {
      method: 'POST',
      body: t.body,
      headers: {
        ...t.headers,
        ...webhookHeaders(
          eventId,
          t.body,
          {
            current: t.signing_secret,
            previous: t.previous_signing_secret,
            previousExpiresAt: t.previous_secret_expires_at,
          },
          nowMs,
        ),
      },
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxBytes: MAX_ANSWER_BYTES,
      followRedirect: () => false,
    });
    return answered(res, 'receiver', started);
  } catch (e) {
    return notAnswered(e, deps.redact, started);
  }
}

/** What a receiver's answer means: a 2xx is a success; otherwise its status, and when to try again. */
export function answered(
  res: { status: number; headers: Record<string, string | string[] | undefined> },
  who: string,
  started: number,
): Sent {
  const ok = res.status >= 200 && res.status < 300;
  return {
    ok,
    status: res.status,
    error: ok ? null : `the ${who} answered ${res.status}`,
    durationMs: Date.now() - started,
    retryAfterMs: ok
      ? undefined
      : retryAfterMs(res.status, res.headers['retry-after'] as string | undefined, Date.now()),
  };
}

/** A send that got no answer (or a redirect, which is none), its error cleaned by `clean`. */
export function notAnswered(e: unknown, clean: (s: string) => string, started: number): Sent {
  const status = isTrawlError(e) && typeof e.fields.status === 'number' ? e.fields.status : null;
  const error = status
    ? `the receiver redirected (${status}); a redirect is not a success`
    : isTrawlError(e)
      ? `${e.code}: ${e.detail}`
      : (e as Error).message;
  return { ok: false, status, error: clean(error), durationMs: Date.now() - started };
}
