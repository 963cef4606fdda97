/**
 * Pages fetched at once per owner (the server's owner is an account): one owner's slow or
 * hanging targets hold its own slots, never another's. A page waits in its owner's line, in
 * order, within its own deadline; an owner with nothing in flight holds no memory here.
 */

/** What a fetch takes before its request is sent and gives back when the response is read. */
export interface FetchSlots {
  /** A slot; rejects with the signal's reason if it aborts first. Call the result to give it back. */
  acquire(signal?: AbortSignal): Promise<() => void>;
  /** Slots this owner may hold at once. */
  readonly limit: number;
  /** Whose share this is (shared resources further down, like render slots, are split by it). */
  readonly owner: string;
}

interface Line {
  active: number;
  waiting: (() => void)[];
}

export class OwnerSlots {
  readonly #lines = new Map<string, Line>();

  constructor(readonly limit: number) {}

  /** Pages in flight for `owner` now (for tests and metrics). */
  active(owner: string): number {
    return this.#lines.get(owner)?.active ?? 0;
  }

  /** Owners with a page in flight or waiting. */
  get owners(): number {
    return this.#lines.size;
  }

  for(owner: string): FetchSlots {
    return { limit: this.limit, owner, acquire: (signal) => this.#acquire(owner, signal) };
  }

  async #acquire(owner: string, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    let line = this.#lines.get(owner);
    if (!line) this.#lines.set(owner, (line = { active: 0, waiting: [] }));
    if (line.active < this.limit) line.active++;
    else await this.#wait(owner, line, signal);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#give(owner, line);
    };
  }

  /** Wait for a slot handed over by #give (active stays counted across the handover). */
  #wait(owner: string, line: Line, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = line.waiting.indexOf(turn);
        if (i >= 0) line.waiting.splice(i, 1);
        this.#forget(owner, line);
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('cancelled'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      line.waiting.push(turn);
    });
  }

  #give(owner: string, line: Line): void {
    const next = line.waiting.shift();
    if (next) return next();
    line.active--;
    this.#forget(owner, line);
  }

  #forget(owner: string, line: Line): void {
    if (line.active === 0 && line.waiting.length === 0 && this.#lines.get(owner) === line) this.#lines.delete(owner);
  }
}
