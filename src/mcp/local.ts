/**
 * In-process mode (no TRAWL_API_URL): the real service started inside the MCP server on
 * 127.0.0.1, an ephemeral port, with its store in a data dir, and a local account and key the
 * MCP server uses to call it over HTTP like any client would. Logs go to stderr.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig, loadEnv } from '../config.js';
import { startService, type Service } from '../runtime.js';
import { accounts, keys, sha256Hex, type Store } from '../store/index.js';

/** The account the in-process server works as: the operator is the user, so it never runs dry. */
export const LOCAL_EMAIL = 'mcp@trawl.local';
const LOCAL_CREDITS = 1_000_000_000;
const LOCAL_RATE_PER_MINUTE = 100_000;

export interface LocalService {
  url: string;
  key: string;
  dataDir: string;
  close(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/** The user's data dir for Trawl: XDG on Linux, Application Support on macOS, LOCALAPPDATA on Windows. */
export function defaultDataDir(env: Env = process.env, platform = process.platform): string {
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'trawl');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'trawl');
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'trawl');
}

export async function startLocalService(log: (msg: string) => void): Promise<LocalService> {
  const env = loadEnv();
  // An MCP client starts servers from any directory: `./data` would land somewhere arbitrary.
  const dataDir = resolve(env.TRAWL_DATA_DIR?.trim() || defaultDataDir(env));
  // Only its owner may look in: the store beside the key holds the account's webhook signing
  // secret in clear (a dir made here; one that exists keeps the mode its owner gave it).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const config = loadConfig({ ...env, PORT: '0', HOST: '127.0.0.1', TRAWL_DATA_DIR: dataDir });
  const logger = { level: env.LOG_LEVEL?.trim() || 'warn', stream: process.stderr };
  let service: Service;
  try {
    service = await startService(config, { logger });
  } catch (e) {
    // `trawl serve` (or another MCP server) already runs this store's scheduler: share the store;
    // that process runs the monitors and crawl jobs.
    if (!/another trawl process/.test((e as Error).message)) throw e;
    log(`${(e as Error).message.split(';')[0]}: sharing its store, whose monitors and crawl jobs that process runs`);
    service = await startService(config, { logger, scheduler: false });
  }
  try {
    const key = await localKey(service.store, dataDir);
    return { url: service.url, key, dataDir, close: () => service.close() };
  } catch (e) {
    await service.close();
    throw e;
  }
}

/** The local account's key, kept (mode 0600) beside the store so restarts reuse it. */
async function localKey(store: Store, dataDir: string): Promise<string> {
  const db = store.db;
  let acc = await accounts.findAccountByEmail(db, LOCAL_EMAIL);
  if (!acc) {
    try {
      acc = await accounts.createAccount(db, { email: LOCAL_EMAIL, credits: LOCAL_CREDITS });
    } catch (e) {
      // Another MCP server starting on the same store created it first.
      acc = await accounts.findAccountByEmail(db, LOCAL_EMAIL);
      if (!acc) throw e;
    }
  } else if (Number(acc.credits) < LOCAL_CREDITS / 10) {
    await accounts.addCredits(db, acc.id, LOCAL_CREDITS - Number(acc.credits));
  }
  await accounts.setRateLimitCeiling(db, acc.id, LOCAL_RATE_PER_MINUTE);
  const file = join(dataDir, 'mcp-key');
  const saved = readOr(file).trim();
  if (saved) {
    const row = await keys.findKeyByHash(db, sha256Hex(saved));
    if (row && !row.revoked_at && row.account_id === acc.id) return saved;
  }
  const { key } = await keys.createApiKey(db, {
    accountId: acc.id,
    name: 'trawl mcp (in-process)',
    rateLimitPerMinute: LOCAL_RATE_PER_MINUTE,
  });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${key}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return key;
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
