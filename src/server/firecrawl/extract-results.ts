/**
 * Extraction results kept for Firecrawl's v1 SDK, which reads every extraction back by id
 * (GET /v1/extract/{id}) even when the answer came at once. They are kept in this process only,
 * for an hour and at most 1,000 of them (oldest dropped first): a deployment with several API
 * processes behind a balancer needs sticky sessions for v1 extract (docs/FIRECRAWL.md). v2
 * answers at once and reads nothing back.
 */
import { newId } from '../../store/index.js';

const TTL_MS = 3_600_000;
const MAX_KEPT = 1000;

export class ExtractResults {
  readonly #kept = new Map<string, { accountId: string; body: Record<string, unknown>; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  put(accountId: string, body: Record<string, unknown>): string {
    this.#prune();
    const id = newId('ext');
    this.#kept.set(id, { accountId, body, until: this.now() + TTL_MS });
    while (this.#kept.size > MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value!);
    return id;
  }

  /** The body kept for this account's id (another account's is not found). */
  get(accountId: string, id: string): Record<string, unknown> | undefined {
    this.#prune();
    const e = this.#kept.get(id);
    return e && e.accountId === accountId ? e.body : undefined;
  }

  expiresAt(id: string): string | undefined {
    const e = this.#kept.get(id);
    return e ? new Date(e.until).toISOString() : undefined;
  }

  #prune(): void {
    const now = this.now();
    for (const [id, e] of this.#kept) {
      if (e.until > now) break;
      this.#kept.delete(id);
    }
  }
}
