/**
 * Database time. Leases are written by one process and judged by another, so they are measured
 * on one clock — the database's — not on each process's own (a worker whose clock runs a minute
 * fast would take over every run early). The offset to PostgreSQL's clock is measured at open
 * (midpoint of the round trip) and again every minute; SQLite lives on this machine's clock.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './tables.js';

const REFRESH_MS = 60_000;
/** A measure whose round trip took longer than this (and 4 times the best seen) is not trusted. */
const MAX_ROUND_TRIP_MS = 100;

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
    this.#retry = () => this.#measure(db).catch(() => undefined);
    await this.#measure(db);
    this.#timer = setInterval(() => void this.#measure(db).catch(() => undefined), REFRESH_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #measure(db: Kysely<Database>): Promise<void> {
    const sent = Date.now();
    const r = await sql<{
      ms: string | number;
    }>`SELECT (extract(epoch from clock_timestamp()) * 1000)::float8 AS ms`.execute(db);
    const back = Date.now();
    this.#record(Number(r.rows[0].ms), sent, back);
  }

  /**
   * One measure: the database's time and when it was asked and answered here. A slow round trip
   * (a stalled event loop: GC, CPU starved, a process stopped and continued) would put the offset
   * off by half of it, enough to make this process judge fresh work not yet due; it is not taken
   * (the last measure stays, and a new one is made a second later, up to 5 times in a row).
   */
  #record(dbMs: number, sent: number, back: number): void {
    const rtt = back - sent;
    if (this.#bestRtt !== undefined && rtt > Math.max(MAX_ROUND_TRIP_MS, 4 * this.#bestRtt) && this.#retries < 5) {
      this.#retries++;
      setTimeout(() => void this.#retry?.(), 1000).unref();
      return;
    }
    this.#retries = 0;
    this.#bestRtt = Math.min(this.#bestRtt ?? rtt, rtt);
    this.#offsetMs = Math.round(dbMs - (sent + back) / 2);
  }

  #bestRtt?: number;
  #retries = 0;
  #retry?: () => Promise<void>;

  /** For tests: record a measure as the refresh would. */
  recordForTest(dbMs: number, sent: number, back: number): void {
    this.#record(dbMs, sent, back);
  }
}
