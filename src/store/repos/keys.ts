import type { ApiKey } from '../tables.js';
import { newApiKey, newId, sha256Hex } from '../ids.js';
import type { Db } from './accounts.js';

export async function createApiKey(
  db: Db,
  input: { accountId: string; name?: string; rateLimitPerMinute?: number },
): Promise<{ key: string; row: ApiKey }> {
  const key = newApiKey();
  const row: ApiKey = {
    id: newId('key'),
    account_id: input.accountId,
    name: input.name ?? null,
    key_hash: sha256Hex(key),
    prefix: `${key.slice(0, 12)}…`,
    rate_limit_per_minute: input.rateLimitPerMinute ?? null,
    created_at: new Date().toISOString(),
    revoked_at: null,
    last_used_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return { key, row };
}

/** Looks a key up by its hash; the caller compares the digests in constant time. */
export const findKeyByHash = (db: Db, keyHash: string) =>
  db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();

/** The key with its account's rate-limit ceiling: what authentication needs, in one query. */
export const findKeyForAuth = (db: Db, keyHash: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .selectAll('api_keys')
    .select('accounts.rate_limit_ceiling')
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();

export const listKeys = (db: Db, accountId: string) =>
  db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').execute();

export async function revokeKey(db: Db, accountId: string, keyId: string): Promise<boolean> {
  const r = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date().toISOString() })
    .where('id', '=', keyId)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Stamps a key's last use. */
export async function touchKey(db: Db, keyId: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId).execute();
}
