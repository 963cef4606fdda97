/**
 * Politeness per host within a process: at most `perHost` pages of one host fetched at once (16:
 * the runner's own concurrency, as the synchronous crawler's default; at 8 the two-worker bench
 * crawled 52 pages/s instead of 152), and
 * successive requests to a host spaced by its robots.txt Crawl-delay (capped at 10 s). Hosts with
 * nothing in flight or waiting hold no memory here.
 */
/** A host's turn: this process's (HostGate) or every worker's (SharedHostGate). */
export interface Gate {
  enter(host: string, delayMs: number, signal?: AbortSignal): Promise<() => void>;
}

/**
 * The host's turn for one page of a job, or undefined when `wanted` says no once it came (the
 * job was cancelled meanwhile: a Crawl-delay may hold a page for long).
 */
export async function hostTurn(
  hosts: Gate,
  host: string,
  delayMs: number,
  wanted?: () => Promise<boolean>,
): Promise<(() => void) | undefined> {
  const leave = await hosts.enter(host, delayMs);
  let go = false;
  try {
    go = !wanted || (await wanted());
  } finally {
    if (!go) leave();
  }
  return go ? leave : undefined;
}

interface Host {
  active: number;
  /** Earliest time the next request to this host may start. */
  next: number;
  waiters: (() => void)[];
}

export class HostGate implements Gate {
  readonly #hosts = new Map<string, Host>();
  constructor(readonly perHost = 16) {}

  /** Waits for this host's turn; call the result when the page is fetched. */
  async enter(host: string, delayMs: number, signal?: AbortSignal): Promise<() => void> {
    let h = this.#hosts.get(host);
    if (!h) this.#hosts.set(host, (h = { active: 0, next: 0, waiters: [] }));
    while (h.active >= this.perHost) await new Promise<void>((r) => h!.waiters.push(r));
    h.active++;
    const wait = h.next - Date.now();
    h.next = Math.max(Date.now(), h.next) + Math.min(10_000, Math.max(0, delayMs));
    if (wait > 0)
      await new Promise<void>((r) => {
        const t = setTimeout(r, wait);
        signal?.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
      });
    let left = false;
    return () => {
      if (left) return;
      left = true;
      h!.active--;
      const next = h!.waiters.shift();
      if (next) next();
      else if (h!.active === 0 && h!.next <= Date.now()) this.#hosts.delete(host);
    };
  }
}
