/**
 * A request's time budget held from outside the work (issue 39: timeout_ms 30,000 answered at
 * 31–37 s under load, 120,000 at 133–227 s): work that overruns — here, work that ignores every
 * deadline — is answered 504 timeout at the budget and its grace, and its signal is aborted so it
 * stops; work within its budget is answered as it is.
 */
import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../src/engine/index.js';
import { withinBudget } from '../../src/server/budget.js';

const engine = {} as Engine;

describe('withinBudget', () => {
  it("lets go of the caller's signal once the work is over, however the work listened (no signal left behind per request)", async () => {
    const caller = new AbortController();
    for (let i = 0; i < 3; i++) {
      const work = withinBudget(1_000, async (signal) => {
        // Work that listens and never stops listening, as fetches and waits often do.
        signal.addEventListener('abort', () => undefined);
        return 'ok';
      });
      await expect(work(caller.signal, engine)).resolves.toBe('ok');
    }
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('leaves no signal behind for the process to keep once the work is over (collectable)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const caller = new AbortController();
    const refs: WeakRef<AbortSignal>[] = [];
    for (let i = 0; i < 20; i++) {
      const work = withinBudget(1_000, async (signal) => {
        signal.addEventListener('abort', () => undefined);
        refs.push(new WeakRef(signal));
        return 'ok';
      });
      await work(caller.signal, engine);
    }
    await new Promise((r) => setTimeout(r, 10));
    gc();
    // Before: AbortSignal.any's composite, listened to, stayed in Node's set of persistent signals.
    expect(refs.filter((r) => r.deref() !== undefined).length).toBe(0);
  });

  it("passes the caller's abort on to the work while it runs", async () => {
    const caller = new AbortController();
    let seen: AbortSignal | undefined;
    const work = withinBudget(5_000, (signal) => {
      seen = signal;
      return new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    });
    const p = work(caller.signal, engine);
    caller.abort(new Error('hung up'));
    await expect(p).rejects.toThrow('hung up');
    expect(seen!.aborted).toBe(true);
  });

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
    // A fake clock: the answer is due at 100 ms of it (budget and grace), long before the work's 5 s.
    vi.useFakeTimers();
    try {
      const answer = stubborn(caller.signal, engine);
      const settled = answer.then(
        () => 'resolved',
        (e: { code?: string; status?: number }) => `${e.code} ${e.status}`,
      );
      await vi.advanceTimersByTimeAsync(99);
      expect(seen!.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await settled).toBe('timeout 504');
    } finally {
      vi.useRealTimers();
    }
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
