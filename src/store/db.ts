/**
 * Opens the store: SQLite (better-sqlite3, a file in the data dir) by default, PostgreSQL
 * when DATABASE_URL is set. Migrations run on open, so a fresh deployment is one command.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { DbClock } from './clock.js';
import { DiskFileStore } from './file-store.js';
import { MIGRATIONS } from './migrations/index.js';
import type { Database } from './tables.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Now on the database's clock: leases and due times shared between processes are judged on it. */
  now(): Date;
  /** Screenshots' bytes (their rows are in `db`). */
  files: DiskFileStore;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** postgres://… ; absent → SQLite. */
  databaseUrl?: string;
  /** Folder for the SQLite file. */
  dataDir: string;
  /** Folder of the file store. @default `<dataDir>/files` */
  filesDir?: string;
  /** SQLite file name, or ':memory:'. @default 'trawl.db' */
  sqliteFile?: string;
  /** Pool size for PostgreSQL. @default 10 */
  poolSize?: number;
  /** Told about background connection errors (logged by the service). */
  onError?: (err: Error) => void;
}

/**
 * Kysely prepares every query anew; the API sends the same few statements thousands of
 * times a second, so prepared statements are kept by SQL text (bounded).
 */
function withStatementCache(sqlite: SqliteDatabase.Database, max = 256) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = sqlite.prepare(sql);
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}

/**
 * Whether an error says the store could not be reached (the same write may succeed in a moment),
 * not that it refused the write: socket errors, PostgreSQL's connection exceptions (class 08) and
 * shutdowns (57P0x), pg's words for a connection lost mid-query, a busy SQLite file.
 */
export function storeUnreachable(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | undefined;
  const code = typeof err?.code === 'string' ? err.code : '';
  if (/^(ECONN|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|08|57P0|SQLITE_BUSY)/.test(code)) return true;
  return (
    typeof err?.message === 'string' &&
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      err.message,
    )
  );
}

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export async function openStore(options: StoreOptions): Promise<Store> {
  let db: Kysely<Database>;
  let dialect: Dialect;
  if (options.databaseUrl) {
    dialect = 'postgres';
    // BIGINT/NUMERIC counters come back as strings by default; ours fit in a JS number.
    pg.types.setTypeParser(20, (v) => Number(v));
    // A connection that cannot be opened (server or link down) fails in 10 s instead of waiting
    // for ever; keepalive lets the kernel notice a link that went silent under an idle client.
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
    });
    // An idle connection that the server closes (restart, failover, admin) must not take the
    // process down: the pool drops it and opens a new one on the next query.
    pool.on('error', (err) => options.onError?.(err));
    // A connection that dies while checked out but between statements (inside a transaction) emits
    // 'error' on its client, where pg-pool listens only while it is idle: unheard, that ends the
    // process. The statement in progress (or the next) fails with it and the caller handles that.
    pool.on('connect', (client) => client.on('error', (err) => options.onError?.(err)));
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  } else {
    dialect = 'sqlite';
    const file = options.sqliteFile ?? 'trawl.db';
    if (file !== ':memory:') mkdirSync(options.dataDir, { recursive: true });
    const sqlite = new SqliteDatabase(file === ':memory:' ? file : join(options.dataDir, file));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  }
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    await db.destroy();
    throw new Error(
      `database migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? 'unknown error'}`,
    );
  }
  const clock = new DbClock();
  if (dialect === 'postgres') await clock.follow(db);
  let closing: Promise<void> | undefined;
  return {
    db,
    dialect,
    now: () => clock.now(),
    files: new DiskFileStore(options.filesDir ?? join(options.dataDir, 'files')),
    close: () => (closing ??= (clock.stop(), db.destroy())),
  };
}
