/**
 * A request's time budget held from outside the work: however loaded the machine (a page waiting
 * for its account's slot, a busy document worker, a slow store), the answer leaves within
 * `timeout_ms` and a grace — 504 `timeout`, the credit given back — and the work is told to stop.
 */
import type { Engine } from '../engine/index.js';
import { linkedSignal } from '../engine/linked-signal.js';
import { timeoutError } from '../errors.js';

/** Past the budget, the work's own deadline handling gets this long to answer (its partial results included). */
export const BUDGET_GRACE_MS = 2_000;

export type Work<T> = (signal: AbortSignal, engine: Engine) => Promise<T>;

export function withinBudget<T>(budgetMs: number, work: Work<T>, graceMs = BUDGET_GRACE_MS): Work<T> {
  return (signal, engine) => {
    const stop = linkedSignal(signal);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const e = timeoutError(`the request used its whole time budget (timeout_ms ${budgetMs}) and was stopped`);
        stop.abort(e);
        reject(e);
      }, budgetMs + graceMs);
    });
    const done = work(stop.signal, engine);
    // Once the budget answered, the work's own end (it stops at the abort) is nobody's to hear.
    done.catch(() => undefined);
    return Promise.race([done, late]).finally(() => {
      clearTimeout(timer);
      stop.release();
    });
  };
}
