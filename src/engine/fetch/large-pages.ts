/**
 * Admission for large pages. A page's bytes are held several times over while it is
 * handled (the body as received, the decoded text, the copy a document worker parses, the
 * tree), so sixteen 9 MB pages at once took the service from 143 MB to over 1 GB. Small
 * pages (most of the web) never wait; a response that grows past `largeBytes` while it
 * downloads needs one of a few slots before it reads on — the socket waits meanwhile, within
 * the request's own deadline — and keeps the slot until its page has been processed.
 */
import { collectSoon } from '../memory.js';

export class LargePageGate {
  #active = 0;
  readonly #waiting: { grant: () => void; fail: (e: Error) => void }[] = [];

  constructor(
    /** A body past this size is a large page. */
    readonly largeBytes: number,
    /** Large pages handled at once. */
    readonly slots: number,
  ) {}

  get active(): number {
    return this.#active;
  }

  /** A lease for one page: it takes a slot only if the page turns out large. */
  lease(): PageLease {
    return new PageLease(this);
  }

  /** A slot now (true), or false when all are taken. */
  tryTake(): boolean {
    if (this.#active >= this.slots) return false;
    this.#active++;
    return true;
  }

  /** A slot when one frees up; rejects with the signal's reason if it aborts first. */
  take(signal?: AbortSignal): Promise<void> {
    if (this.tryTake()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const entry = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        fail: reject,
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(entry);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('cancelled'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(entry);
    });
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next) return next.grant();
    this.#active--;
    // The last large page is done: what it left behind goes back soon.
    if (this.#active === 0) collectSoon();
  }
}

export class PageLease {
  #held = false;
  #released = false;
  /** Cancels this lease's wait for a slot (when it is released first). */
  #waiting?: AbortController;
  constructor(readonly gate: LargePageGate) {}

  /** Called as the body grows: undefined to read on, or a promise to wait for before reading more. */
  grow(size: number, signal?: AbortSignal): Promise<void> | undefined {
    if (this.#held || this.#released || this.#waiting || size <= this.gate.largeBytes) return undefined;
    if (this.gate.tryTake()) {
      this.#held = true;
      return undefined;
    }
    const waiting = (this.#waiting = new AbortController());
    const cancel = signal ? AbortSignal.any([signal, waiting.signal]) : waiting.signal;
    return this.gate.take(cancel).then(() => {
      this.#waiting = undefined;
      if (this.#released) this.gate.give();
      else this.#held = true;
    });
  }

  /** The page is done with (processed, failed or dropped): its slot, if it took one, is free. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#waiting?.abort(new Error('the page was dropped while it waited for a large-page slot'));
    if (this.#held) {
      this.#held = false;
      this.gate.give();
    }
  }
}
