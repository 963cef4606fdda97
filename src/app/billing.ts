/**
 * The one billing gate: one credit is reserved before the work starts (402 when there is none),
 * kept when the work succeeds and given back on any failure but one whose work was done anyway
 * (TrawlError.charged: a render that ran the caller's steps). The API (/v1 through withCredit), the
 * dashboard's playground and jobs go through `charged`; a monitor run reserves its credit in the
 * run's claim (the same reserve, made atomic with the run's state: store/repos/runs.ts) and gives
 * it back in the same transaction that records a failed run.
 */
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

/**
 * The dashboard's gate for a use case's work (map, search, extract from the playground): the same
 * reserve → keep or give back as the API's, the work run with the account's engine view and the
 * page's signal (a closed tab stops it, and its charge).
 */
export function chargedWork<T>(
  ctx: AppContext,
  accountId: string,
  work: Work<T>,
  signal: AbortSignal,
  free?: (result: T) => boolean,
): Promise<T> {
  return charged(ctx.store.db, accountId, () => work(signal, forOwner(ctx.engine, accountId)), free);
}
