/**
 * Start the real service for a test, on SQLite (temp dir) or PostgreSQL (a fresh database
 * on 127.0.0.1:5432, dropped afterwards). `DIALECTS` lets a suite run once per store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.js';
import { startService, type Service } from '../../src/runtime.js';
import { accounts, keys } from '../../src/store/index.js';

export const PG_ADMIN_URL = process.env.TRAWL_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export type TestDialect = 'sqlite' | 'postgres';

/**
 * Whether the test PostgreSQL answers (asked once per test file that imports this). Without it
 * the PostgreSQL half of each suite is skipped, said once per file on stderr — except in CI
 * (`CI` set), where a missing PostgreSQL is an error: CI runs every test.
 */
export const PG_AVAILABLE: boolean = await postgresAnswers();
export const DIALECTS: readonly TestDialect[] = PG_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];

async function postgresAnswers(): Promise<boolean> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    return true;
  } catch (err) {
    const why = `no PostgreSQL answers at ${new URL(PG_ADMIN_URL).host} (${(err as Error).message || String(err)})`;
    if (process.env.CI)
      throw new Error(`${why}: CI runs every PostgreSQL test (set TRAWL_TEST_PG_URL)`, { cause: err });
    console.warn(`skipped: PostgreSQL tests, ${why}; start one or set TRAWL_TEST_PG_URL to run them`);
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

export interface TestService extends Service {
  config: Config;
  /** Create an account with credits and a key; returns the bearer key. */
  newKey(credits?: number, rateLimitPerMinute?: number): Promise<{ key: string; accountId: string; keyId: string }>;
  credits(accountId: string): Promise<number>;
  post(path: string, body: unknown, key?: string, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

/** A fresh PostgreSQL database on the local server, and how to drop it. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `trawl_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: PG_ADMIN_URL });
    await c.connect();
    try {
      await c.query(q);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  return { url: u.href, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export async function startTestService(
  dialect: TestDialect,
  env: Record<string, string> = {},
  /** A pino logger's options (level, stream), or true, when a test reads the service's log lines. */
  options: { logger?: boolean | object } = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-test-'));
  const pgDb = dialect === 'postgres' ? await createTestDatabase() : undefined;
  const databaseUrl = pgDb?.url;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    TRAWL_DATA_DIR: dataDir,
    TRAWL_ALLOW_PRIVATE_NETWORK: '1',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  });
  const service = await startService(config, { logger: options.logger ?? false });
  let n = 0;
  return {
    ...service,
    config,
    async newKey(credits = 100, rateLimitPerMinute = 10_000) {
      const acc = await accounts.createAccount(service.store.db, {
        email: `u${++n}-${Math.random().toString(36).slice(2)}@test.local`,
        credits,
      });
      // As the operator would: the account's ceiling lets the key have the rate asked for.
      await accounts.setRateLimitCeiling(service.store.db, acc.id, rateLimitPerMinute);
      const { key, row } = await keys.createApiKey(service.store.db, { accountId: acc.id, rateLimitPerMinute });
      return { key, accountId: acc.id, keyId: row.id };
    },
    async credits(accountId) {
      return Number((await accounts.findAccountById(service.store.db, accountId))!.credits);
    },
    post(path, body, key, headers = {}) {
      return fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    },
    async stop() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
      await pgDb?.drop();
    },
  };
}
