/**
 * One answer's byte cap (TRAWL_ANSWER_MAX_MB, default 32): an answer over it is 413
 * payload_too_large saying what to ask for instead, and it is not charged. 49 `scrape` steps
 * once made a 75 MB answer and ~480 MB of memory; a synchronous crawl of 1,000 long pages
 * would make more.
 */
import { TrawlError } from './errors.js';

const mib = (n: number) => `${n % 2 ** 20 ? (n / 2 ** 20).toFixed(1) : n / 2 ** 20} MiB`;

/**
 * About how many bytes `value` takes as JSON (its strings' UTF-8 and a few per key and value),
 * counted only until it passes `stopAbove`: a walk, not a serialisation.
 */
export function answerBytes(value: unknown, stopAbove = Infinity): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length && bytes <= stopAbove) {
    const v = stack.pop();
    if (typeof v === 'string') bytes += Buffer.byteLength(v) + 2;
    else if (Array.isArray(v)) {
      bytes += 2 + v.length;
      for (const item of v) stack.push(item);
    } else if (v && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        bytes += Buffer.byteLength(k) + 4;
        stack.push(item);
      }
    } else bytes += 8;
  }
  return bytes;
}

/** The 413 for an answer of `bytes` over `cap`; `advice` says how to ask for less. */
export function answerTooLarge(bytes: number, cap: number, advice: string): TrawlError {
  return new TrawlError(
    'payload_too_large',
    `answer: more than ${mib(bytes)}, over the ${mib(cap)} one answer may hold, so it was not sent (nothing charged); ${advice}`,
  );
}
