/**
 * Database time. Leases are written by one process and judged by another, so they are measured
 * on one clock — the database's — not on each process's own (a worker whose clock runs a minute
 * fast would take over every run early). The offset to PostgreSQL's clock is measured at open
 * (midpoint of the round trip) and again every minute; SQLite lives on this machine's clock.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './tables.js';

const REFRESH_MS = 60_000;

export class DbClock {
  #offsetMs = 0;
  #timer?: NodeJS.Timeout;

  /** Now, on the database's clock. */
  now(): Date {
    return new Date(Date.now() + this.#offsetMs);
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Follow PostgreSQL's clock (measured now, then every minute; a failed measure keeps the last). */
  async follow(db: Kysely<Database>): Promise<void> {
    await this.#measure(db);
    this.#timer = setInterval(() => void this.#measure(db).catch(() => undefined), REFRESH_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #measure(db: Kysely<Database>): Promise<void> {
    const sent = Date.now();
    const r = await sql<{ ms: string | number }>`SELECT (extract(epoch from clock_timestamp()) * 1000)::float8 AS ms`.execute(db);
    const back = Date.now();
    this.#offsetMs = Math.round(Number(r.rows[0].ms) - (sent + back) / 2);
  }
}
