/**
 * Admission for large pages. A page's bytes are held several times over while it is
 * handled (the body as received, the decoded text, the copy a document worker parses, the
 * tree), so sixteen 9 MB pages at once took the service from 143 MB to over 1 GB. Small
 * pages (most of the web) never wait for a slot; a response that grows past `largeBytes`
 * while it downloads needs one of a few slots before it reads on — the socket waits
 * meanwhile, within the request's own deadline — and keeps the slot until its page has been
 * processed. Every page's bytes count towards `budgetBytes` from download to release: while
 * the pages held are over it, a new page waits before its request is sent (pages already
 * downloading go on, so nothing deadlocks), within its deadline.
 */
import { collectSoon } from '../memory.js';

export class LargePageGate {
  #active = 0;
  /** Pages waiting for a large-page slot, in order; each called when its turn comes. */
  readonly #waiting: (() => void)[] = [];

  /** Body bytes of the pages held now (downloading or waiting to be processed). */
  #bytes = 0;
  /** Pages waiting to be admitted under the byte budget, in order. */
  readonly #admitting: (() => void)[] = [];

  constructor(
    /** A body past this size is a large page. */
    readonly largeBytes: number,
    /** Large pages handled at once. */
    readonly slots: number,
    /** Page bytes held at once before new pages wait. @default Infinity */
    readonly budgetBytes = Infinity,
  ) {}

  get active(): number {
    return this.#active;
  }

  /** Body bytes held by pages not yet released. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Count `delta` bytes in (or out, negative); admits waiting pages once under the budget. */
  count(delta: number): void {
    this.#bytes += delta;
    while (this.#admitting.length && this.#bytes < this.budgetBytes) this.#admitting.shift()!();
  }

  /** A lease at once while the pages held are under the budget, else undefined. */
  tryAdmit(): PageLease | undefined {
    return this.#bytes < this.budgetBytes ? new PageLease(this) : undefined;
  }

  /**
   * A lease for a page about to be fetched: at once while the pages held are under the
   * budget, else when they are; rejects with the signal's reason if it aborts first.
   */
  admit(signal?: AbortSignal): Promise<PageLease> {
    const now = this.tryAdmit();
    return now ? Promise.resolve(now) : waitInLine(this.#admitting, signal).then(() => new PageLease(this));
  }

  /** A slot now (true), or false when all are taken. */
  tryTake(): boolean {
    if (this.#active >= this.slots) return false;
    this.#active++;
    return true;
  }

  /** A slot when one frees up; rejects with the signal's reason if it aborts first. */
  take(signal?: AbortSignal): Promise<void> {
    return this.tryTake() ? Promise.resolve() : waitInLine(this.#waiting, signal);
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next) return next();
    this.#active--;
    // The last large page is done: what it left behind goes back soon.
    if (this.#active === 0) collectSoon();
  }
}

/** Wait in `line` until called; leave it, rejecting with the signal's reason, if it aborts first. */
function waitInLine(line: (() => void)[], signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const turn = () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      const i = line.indexOf(turn);
      if (i >= 0) line.splice(i, 1);
      reject(signal!.reason instanceof Error ? signal!.reason : new Error('cancelled'));
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    line.push(turn);
  });
}

export class PageLease {
  #held = false;
  #released = false;
  /** Bytes of this page counted in the gate's total. */
  #counted = 0;
  /** Cancels this lease's wait for a slot (when it is released first). */
  #waiting?: AbortController;
  constructor(readonly gate: LargePageGate) {}

  /** Whether the page is waiting now for a large-page slot (its body is past the gate's size). */
  get waitingForSlot(): boolean {
    return !!this.#waiting && !this.#released;
  }

  /** Called as the body grows: undefined to read on, or a promise to wait for before reading more. */
  grow(size: number, signal?: AbortSignal): Promise<void> | undefined {
    if (!this.#released && size > this.#counted) {
      this.gate.count(size - this.#counted);
      this.#counted = size;
    }
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
    if (this.#counted) {
      this.gate.count(-this.#counted);
      this.#counted = 0;
    }
    if (this.#held) {
      this.#held = false;
      this.gate.give();
    }
  }
}
