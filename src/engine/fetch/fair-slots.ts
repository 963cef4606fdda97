/**
 * Slots of a scarce resource shared by several owners (accounts), e.g. Chromium renders. No owner
 * holds more than `perOwner` at once, and a freed slot goes to the waiter whose owner holds the
 * fewest, first come first served among equals — so one account's hanging renders cannot keep
 * another's waiting for more than one render's time. Waits end with the caller's budget or signal.
 */
import { timeoutError } from '../../errors.js';

interface Waiter {
  owner: string;
  turn: () => void;
}

export class FairSlots {
  #active = 0;
  readonly #held = new Map<string, number>();
  readonly #waiting: Waiter[] = [];

  constructor(
    readonly max: number,
    /** Slots one owner may hold at once. @default max − 1 (one always left for others), at least 1 */
    readonly perOwner = Math.max(1, max - 1),
    /** What ran out, for the timeout's detail ("Chromium render slots"). */
    readonly what = 'slots',
  ) {}

  get active(): number {
    return this.#active;
  }

  /** A slot for `owner`, waiting at most `timeoutMs`; call the result to give it back. */
  async take(owner: string, timeoutMs: number, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.#free(owner) && !this.#waiting.length) this.#grant(owner);
    else await this.#wait(owner, timeoutMs, signal);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#release(owner);
    };
  }

  #free(owner: string): boolean {
    return this.#active < this.max && (this.#held.get(owner) ?? 0) < this.perOwner;
  }

  #grant(owner: string): void {
    this.#active++;
    this.#held.set(owner, (this.#held.get(owner) ?? 0) + 1);
  }

  #release(owner: string): void {
    this.#active--;
    const n = (this.#held.get(owner) ?? 1) - 1;
    if (n > 0) this.#held.set(owner, n);
    else this.#held.delete(owner);
    this.#next();
  }

  /** Hand free slots to waiters: fewest held first, arrival order among equals. */
  #next(): void {
    while (this.#active < this.max) {
      let best = -1;
      for (let i = 0; i < this.#waiting.length; i++) {
        const w = this.#waiting[i];
        if (!this.#free(w.owner)) continue;
        if (best < 0 || (this.#held.get(w.owner) ?? 0) < (this.#held.get(this.#waiting[best].owner) ?? 0)) best = i;
      }
      if (best < 0) return;
      const [w] = this.#waiting.splice(best, 1);
      this.#grant(w.owner);
      w.turn();
    }
  }

  #wait(owner: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const leave = (e: Error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const i = this.#waiting.indexOf(waiter);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(e);
      };
      const waiter: Waiter = {
        owner,
        turn: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => leave(signal!.reason instanceof Error ? signal!.reason : new Error('cancelled'));
      const timer = setTimeout(
        () =>
          leave(
            timeoutError(
              `all ${this.max} ${this.what} of this server stayed busy for the page's whole time budget (${timeoutMs} ms) (one account holds at most ${this.perOwner}); the page was not rendered`,
            ),
          ),
        timeoutMs,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
      this.#next();
    });
  }
}
