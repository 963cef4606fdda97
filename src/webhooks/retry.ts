/**
 * When a failed delivery is tried again. The default schedule spans more than 24 h (contract
 * section 5): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the attempts before (then 10 h
 * again while attempts remain), each with up to 10 % jitter added (never earlier).
 * TRAWL_WEBHOOK_RETRY_BASE_MS is the first step (default 5000 ms) and scales all of them
 * (step × base / 5000), so tests can run the whole schedule in a few seconds.
 */
export const SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
export const SCHEDULE_UNIT_MS = SCHEDULE_MS[0];
/** A `Retry-After` asking for longer than this is held to it. */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;

/** Delay before the next attempt after `failed` failed attempts of the current schedule (≥ 1). */
export function retryDelayMs(failed: number, baseMs: number, random = Math.random): number {
  const step = SCHEDULE_MS[Math.min(Math.max(failed, 1), SCHEDULE_MS.length) - 1];
  const delay = (step * baseMs) / SCHEDULE_UNIT_MS;
  return Math.round(delay * (1 + 0.1 * random()));
}

/** The three forms of an HTTP-date (RFC 9110 section 5.6.7) all begin with the day's name. */
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /i;

/**
 * `Retry-After` of a 429 or 503 answer in milliseconds from `nowMs` (delay-seconds or an
 * HTTP-date), bounded to 0 … 24 h; undefined when absent or unreadable ("-5", "1.5", "soon" …
 * are not read as dates: the schedule applies).
 */
export function retryAfterMs(status: number | null, header: string | undefined, nowMs: number): number | undefined {
  if ((status !== 429 && status !== 503) || !header) return undefined;
  const v = header.trim();
  let ms: number;
  if (/^\d+$/.test(v)) ms = Number(v.slice(0, 12)) * 1000;
  else {
    const at = HTTP_DATE.test(v) ? Date.parse(v) : NaN;
    if (Number.isNaN(at)) return undefined;
    ms = at - nowMs;
  }
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

/** What an attempt leaves its event in: sent, to try again at `nextAttemptAt`, or given up. */
export interface NextStep {
  state: 'succeeded' | 'pending' | 'failed';
  nextAttemptAt: string | null;
}

/**
 * The step after an attempt of a monitor's delivery or a job's event: a success ends it; a
 * failure is given up when `giveUp` (410 Gone, nowhere to send) or when `failed` attempts of the
 * current schedule reach `maxAttempts`, else tried again on the schedule — or later, when a
 * 429/503's Retry-After says so. An earlier Retry-After (0 …) does not bring it forward, or a
 * receiver answering "Retry-After: 0" would spend the whole schedule in a second.
 */
export function nextStep(
  sent: { ok: boolean; retryAfterMs?: number },
  o: { failed: number; maxAttempts: number; retryBaseMs: number; doneMs: number; giveUp?: boolean },
): NextStep {
  if (sent.ok) return { state: 'succeeded', nextAttemptAt: null };
  if (o.giveUp || o.failed >= o.maxAttempts) return { state: 'failed', nextAttemptAt: null };
  const delay = Math.max(sent.retryAfterMs ?? 0, retryDelayMs(o.failed, o.retryBaseMs));
  return { state: 'pending', nextAttemptAt: new Date(o.doneMs + delay).toISOString() };
}
