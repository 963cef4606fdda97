/**
 * A request's time budget held from outside the work (issue 39: timeout_ms 30,000 answered at
 * 31–37 s under load, 120,000 at 133–227 s): work that overruns — here, work that ignores every
 * deadline — is answered 504 timeout at the budget and its grace, and its signal is aborted so it
 * stops; work within its budget is answered as it is.
 */
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/index.js';
import { withinBudget } from '../../src/server/budget.js';

const engine = {} as Engine;

describe('withinBudget', () => {
  it('answers timeout once the budget and its grace are spent, and tells the work to stop', async () => {
    let seen: AbortSignal | undefined;
    const stubborn = withinBudget(
      50,
      (signal) => {
        seen = signal;
        return new Promise<string>((resolve) => setTimeout(() => resolve('late'), 5_000));
      },
      50,
    );
    const caller = new AbortController();
    const t0 = Date.now();
    await expect(stubborn(caller.signal, engine)).rejects.toMatchObject({ code: 'timeout', status: 504 });
    expect(Date.now() - t0).toBeLessThan(4_000);
    expect(seen!.aborted).toBe(true);
    expect(seen!.reason).toMatchObject({ code: 'timeout' });
  });

  it('passes a result and the caller going away through unchanged', async () => {
    const quick = withinBudget(1_000, async () => 'ok');
    expect(await quick(new AbortController().signal, engine)).toBe('ok');
    const caller = new AbortController();
    let seen: AbortSignal | undefined;
    const waits = withinBudget(60_000, (signal) => {
      seen = signal;
      return new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    });
    const p = waits(caller.signal, engine);
    caller.abort(new Error('gone'));
    await expect(p).rejects.toThrow('gone');
    expect(seen!.aborted).toBe(true);
  });
});
