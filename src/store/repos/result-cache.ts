/**
 * The scrape result cache's rows (`max_age`): one per key (the hash of URL, options and scope),
 * replaced when the page is fetched again; bounded in bytes by `pruneCache`, oldest first.
 */
import { sql } from 'kysely';
import type { Db } from './accounts.js';

export interface CacheRow {
  body: string;
  created_at: string;
}

/** The entry made at or after `notBefore` that has not expired at `now`. */
export async function getEntry(db: Db, key: string, notBefore: Date, now: Date): Promise<CacheRow | undefined> {
  return db
    .selectFrom('result_cache')
    .select(['body', 'created_at'])
    .where('key', '=', key)
    .where('created_at', '>=', notBefore.toISOString())
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now.toISOString())]))
    .executeTakeFirst();
}

export async function putEntry(
  db: Db,
  e: { key: string; accountId: string | null; body: string; createdAt: Date; expiresAt?: Date },
): Promise<number> {
  const bytes = Buffer.byteLength(e.body);
  const row = {
    key: e.key,
    account_id: e.accountId,
    body: e.body,
    bytes,
    created_at: e.createdAt.toISOString(),
    expires_at: e.expiresAt?.toISOString() ?? null,
  };
  await db
    .insertInto('result_cache')
    .values(row)
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        account_id: row.account_id,
        body: row.body,
        bytes: row.bytes,
        created_at: row.created_at,
        expires_at: row.expires_at,
      }),
    )
    .execute();
  return bytes;
}

/** Bytes the cache holds. */
export async function cacheBytes(db: Db): Promise<number> {
  const r = await db
    .selectFrom('result_cache')
    .select(sql<number>`coalesce(sum(bytes), 0)`.as('total'))
    .executeTakeFirst();
  return Number(r?.total ?? 0);
}

/**
 * Deletes expired entries, then the oldest while the cache holds more than `maxBytes`; at most
 * `limit` rows a statement. Returns the rows deleted.
 */
export async function pruneCache(db: Db, now: Date, maxBytes: number, limit: number): Promise<number> {
  let deleted = Number(
    (
      await db
        .deleteFrom('result_cache')
        .where(
          'key',
          'in',
          db.selectFrom('result_cache').select('key').where('expires_at', '<=', now.toISOString()).limit(limit),
        )
        .executeTakeFirst()
    ).numDeletedRows,
  );
  for (let over = (await cacheBytes(db)) - maxBytes; over > 0;) {
    const oldest = await db
      .selectFrom('result_cache')
      .select(['key', 'bytes'])
      .orderBy('created_at')
      .limit(limit)
      .execute();
    if (!oldest.length) break;
    const keys: string[] = [];
    for (const r of oldest) {
      if (over <= 0) break;
      keys.push(r.key);
      over -= Number(r.bytes);
    }
    deleted += Number((await db.deleteFrom('result_cache').where('key', 'in', keys).executeTakeFirst()).numDeletedRows);
  }
  return deleted;
}
