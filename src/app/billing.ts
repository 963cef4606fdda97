/**
 * The one billing gate: one credit is reserved before the work starts (402 when there is none),
 * kept when the work succeeds and given back on any failure but one whose work was done anyway
 * (TrawlError.charged: a render that ran the caller's steps). An answer someone waits for (/v1 and
 * Firecrawl through withCredit, the dashboard's playground) goes through `chargedWork`, jobs through
 * `charged`; a monitor run reserves its credit in the
 * run's claim (the same reserve, made atomic with the run's state: store/repos/runs.ts) and gives
 * it back in the same transaction that records a failed run.
 */
import { answerBytes, answerTooLarge } from '../answer-cap.js';
import { isTrawlError, TrawlError } from '../errors.js';
import { creditRefusals, creditsCharged, creditsRefunded } from '../metrics.js';
import { accounts } from '../store/index.js';
import type { Db } from '../store/repos/accounts.js';
import { forOwner } from '../engine/index.js';
import type { Work } from './budget.js';
import type { AppContext } from './context.js';

/**
 * `free`: whether a result is given without charge (a scrape that brought back nothing at
 * all): its credit goes back as on a failure.
 */
export async function charged<T>(
  db: Db,
  accountId: string,
  work: () => Promise<T>,
  free?: (result: T) => boolean,
): Promise<T> {
  if (!(await accounts.reserveCredit(db, accountId))) {
    creditRefusals.inc();
    throw new TrawlError('insufficient_credits');
  }
  let result: T;
  try {
    result = await work();
  } catch (e) {
    if (isTrawlError(e) && e.charged) creditsCharged.inc({ by: 'request' });
    else {
      await accounts.refundCredit(db, accountId);
      creditsRefunded.inc({ by: 'request' });
    }
    throw e;
  }
  if (free?.(result)) {
    await accounts.refundCredit(db, accountId);
    creditsRefunded.inc({ by: 'request' });
    return result;
  }
  creditsCharged.inc({ by: 'request' });
  return result;
}

/** How a 413 for an answer over the cap says to ask for less. */
export const ANSWER_ADVICE =
  'ask for less: fewer formats (html and raw_html repeat the page), fewer scrape steps, fewer results or pages';

/** Why the work stopped when its asker went away (the signal's reason when it names one). */
const goneError = (signal: AbortSignal) =>
  isTrawlError(signal.reason) ? signal.reason : new TrawlError('fetch_failed', 'the client closed the connection');

/**
 * One answer's credit, for every surface that answers a person waiting (/v1, Firecrawl, the
 * dashboard): `charged`'s reserve → keep or give back, the work run with the account's engine view
 * and `signal` (aborted when the asker went away), and given back as well when the asker went away
 * before the answer was ready, or when the answer passes TRAWL_ANSWER_MAX_MB (413, answer-cap.ts).
 * `credits`: what it kept (0 for a free answer).
 */
export async function chargedWork<T>(
  ctx: AppContext,
  accountId: string,
  work: Work<T>,
  signal: AbortSignal,
  free?: (result: T) => boolean,
): Promise<{ value: T; credits: number }> {
  const value = await charged(
    ctx.store.db,
    accountId,
    async () => {
      const r = await work(signal, forOwner(ctx.engine, accountId));
      // Nobody will read it: not charged.
      if (signal.aborted) throw goneError(signal);
      // An answer over the cap is refused (and so given back) rather than sent.
      const cap = ctx.config.answerMaxBytes;
      const bytes = answerBytes(r, cap);
      if (bytes > cap) throw answerTooLarge(bytes, cap, ANSWER_ADVICE);
      return r;
    },
    free,
  );
  return { value, credits: free?.(value) ? 0 : 1 };
}
