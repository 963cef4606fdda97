/**
 * Extraction results kept for Firecrawl's v1 SDK, which reads every extraction back by id
 * (GET /v1/extract/{id}) even when the answer came at once. They are kept in this process only,
 * for an hour, at most 1,000 of them and 128 MiB of JSON together (oldest dropped first: one
 * answer can carry a page's megabytes, and a count alone let a thousand of them pin gigabytes):
 * a deployment with several API processes behind a balancer needs sticky sessions for v1
 * extract (docs/FIRECRAWL.md). v2 answers at once and reads nothing back.
 */
import { newId } from '../../store/index.js';

const TTL_MS = 3_600_000;
const MAX_KEPT = 1000;
const MAX_BYTES = 128 * 1024 * 1024;

interface Kept {
  accountId: string;
  /** The answer as JSON: its size is what it costs, and nothing else stays reachable from it. */
  json: string;
  until: number;
}

export class ExtractResults {
  readonly #kept = new Map<string, Kept>();
  #bytes = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly limits: { count: number; bytes: number } = { count: MAX_KEPT, bytes: MAX_BYTES },
  ) {}

  put(accountId: string, body: Record<string, unknown>): string {
    this.#prune();
    const id = newId('ext');
    const json = JSON.stringify(body);
    this.#kept.set(id, { accountId, json, until: this.now() + TTL_MS });
    this.#bytes += json.length;
    // The newest stays whatever its size: its caller reads it back next.
    while (this.#kept.size > 1 && (this.#kept.size > this.limits.count || this.#bytes > this.limits.bytes))
      this.#drop(this.#kept.keys().next().value!);
    return id;
  }

  /** The body kept for this account's id (another account's is not found). */
  get(accountId: string, id: string): Record<string, unknown> | undefined {
    this.#prune();
    const e = this.#kept.get(id);
    return e && e.accountId === accountId ? (JSON.parse(e.json) as Record<string, unknown>) : undefined;
  }

  expiresAt(id: string): string | undefined {
    const e = this.#kept.get(id);
    return e ? new Date(e.until).toISOString() : undefined;
  }

  /** JSON characters kept (what the byte bound counts). */
  get size(): number {
    return this.#bytes;
  }

  #drop(id: string): void {
    this.#bytes -= this.#kept.get(id)?.json.length ?? 0;
    this.#kept.delete(id);
  }

  #prune(): void {
    const now = this.now();
    for (const [id, e] of this.#kept) {
      if (e.until > now) break;
      this.#drop(id);
    }
  }
}
