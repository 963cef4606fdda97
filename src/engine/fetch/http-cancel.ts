/** One request's cancellation: its time budget and its caller's signal, with one timer and one listener. */
import { isTrawlError } from '../../errors.js';

/**
 * A request's time budget and the caller's signal, as one cancellation: a single timer and
 * a single listener per request, where AbortSignal.timeout + AbortSignal.any cost a crawl's
 * event loop a timer object and a weakly held composite signal per page.
 */
export class Cancel {
  timedOut = false;
  #reason?: Error;
  #abort?: (reason: Error) => void;
  readonly #timer: NodeJS.Timeout;
  readonly #signal?: AbortSignal;

  constructor(timeoutMs: number, signal?: AbortSignal) {
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.fire(new Error('timeout'));
    }, timeoutMs);
    this.#signal = signal;
    if (signal?.aborted) this.#reason = abortedError(signal.reason);
    else if (signal) listenersOf(signal).add(this);
  }

  /** Throws when the request was already cancelled. */
  check(): void {
    if (this.#reason) throw this.#reason;
  }

  /** While an exchange is under way, cancelling calls `abort`. */
  bind(abort: ((reason: Error) => void) | undefined): void {
    this.#abort = abort;
    if (abort && this.#reason) abort(this.#reason);
  }

  fire(reason: Error): void {
    if (this.#reason) return;
    this.#reason = reason;
    this.#abort?.(reason);
  }

  done(): void {
    clearTimeout(this.#timer);
    if (this.#signal) listenersOf(this.#signal).delete(this);
  }
}

/**
 * The requests listening to one caller's signal: a crawl's signal is shared by all its
 * requests in flight, so it gets one listener that fans out rather than one per request.
 */
const cancelsBySignal = new WeakMap<AbortSignal, Set<Cancel>>();

function listenersOf(signal: AbortSignal): Set<Cancel> {
  let set = cancelsBySignal.get(signal);
  if (!set) {
    const cancels = (set = new Set());
    cancelsBySignal.set(signal, cancels);
    signal.addEventListener(
      'abort',
      () => {
        for (const c of cancels) c.fire(abortedError(signal.reason));
      },
      { once: true },
    );
  }
  return set;
}

function abortedError(reason: unknown): Error {
  if (isTrawlError(reason)) return reason;
  const e = new Error('This operation was aborted', { cause: reason });
  e.name = 'AbortError';
  return e;
}
