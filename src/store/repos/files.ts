/** Screenshots kept in the store (contract section 9): written once, read by id until they expire, pruned after. */
import { PostgresAdapter } from 'kysely';
import type { Db } from './accounts.js';

export interface NewFile {
  id: string;
  accountId: string | null;
  contentType: string;
  body: Buffer;
  createdAt: Date;
  expiresAt: Date;
}

export async function saveFile(db: Db, f: NewFile): Promise<void> {
  await db
    .insertInto('files')
    .values({
      id: f.id,
      account_id: f.accountId,
      content_type: f.contentType,
      bytes: f.body.length,
      body: f.body,
      created_at: f.createdAt.toISOString(),
      expires_at: f.expiresAt.toISOString(),
    })
    .execute();
}

/** The file while it has not expired (an expired one the pruner has not reached yet reads as gone). */
export async function getFile(
  db: Db,
  id: string,
  now: Date,
): Promise<{ content_type: string; body: Buffer; created_at: string; expires_at: string } | undefined> {
  const row = await db
    .selectFrom('files')
    .select(['content_type', 'body', 'created_at', 'expires_at'])
    .where('id', '=', id)
    .where('expires_at', '>', now.toISOString())
    .executeTakeFirst();
  // SQLite hands blobs back as Buffers, PostgreSQL bytea too; a Uint8Array is made one without a copy.
  return row && { ...row, body: Buffer.isBuffer(row.body) ? row.body : Buffer.from(row.body as Uint8Array) };
}

/** Deletes up to `limit` expired files; returns how many. */
export async function deleteExpiredFiles(db: Db, now: Date, limit: number): Promise<number> {
  const pick = db.selectFrom('files').select('id').where('expires_at', '<=', now.toISOString()).limit(limit);
  const ids = (
    await (db.getExecutor().adapter instanceof PostgresAdapter ? pick.forUpdate().skipLocked() : pick).execute()
  ).map((r) => r.id);
  if (!ids.length) return 0;
  const r = await db.deleteFrom('files').where('id', 'in', ids).executeTakeFirst();
  return Number(r.numDeletedRows);
}
