/**
 * Each running job's clearance cookies in this process (issue 42): the pages of one crawl or batch
 * on one host meet a JS challenge once, not once a page. A jar belongs to one job id, so no other
 * job or account sees its cookies. Held in memory only (a cookie is worth minutes): a jar unused
 * for `IDLE_MS` is dropped, and at most `MAX_JARS` are held — the least recently used go first.
 * In scale-out each worker process keeps its own; a page on another worker may clear again.
 */
import { ClearanceJar } from '../engine/fetch/clearance.js';

export const IDLE_MS = 30 * 60_000;
export const MAX_JARS = 2_000;

export class JobClearance {
  readonly #jars = new Map<string, { jar: ClearanceJar; used: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The job's jar (made on first use). */
  for(jobId: string): ClearanceJar {
    const now = this.#now();
    let entry = this.#jars.get(jobId);
    if (entry) this.#jars.delete(jobId);
    else entry = { jar: new ClearanceJar(), used: now };
    entry.used = now;
    // Re-inserted: the map's order is least recently used first.
    this.#jars.set(jobId, entry);
    this.#prune(now);
    return entry.jar;
  }

  get size(): number {
    return this.#jars.size;
  }

  #prune(now: number): void {
    for (const [id, e] of this.#jars) {
      if (this.#jars.size <= MAX_JARS && now - e.used < IDLE_MS) break;
      this.#jars.delete(id);
    }
  }
}
