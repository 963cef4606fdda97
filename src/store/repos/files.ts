/**
 * Screenshots' rows (contract section 9): what a file is, whose, how large, until when, and where
 * its bytes are ('disk': the file store; 'db': `body`, rows made before it). Written once, read
 * by id until they expire; deleted by the pruner after, or earlier when their account holds more
 * than its bound (oldest first). The bytes themselves are the file store's (file-store.ts).
 */
import { sql } from 'kysely';
import type { Db } from './accounts.js';

export interface NewFile {
  id: string;
  accountId: string | null;
  contentType: string;
  bytes: number;
  createdAt: Date;
  expiresAt: Date;
}

export interface FileRow {
  id: string;
  account_id: string | null;
  content_type: string;
  bytes: number;
  storage: 'disk' | 'db';
  created_at: string;
  expires_at: string;
}

/** A file whose bytes are in the file store (`body` stays empty). */
export async function saveFile(db: Db, f: NewFile): Promise<void> {
  await db
    .insertInto('files')
    .values({
      id: f.id,
      account_id: f.accountId,
      content_type: f.contentType,
      bytes: f.bytes,
      body: Buffer.alloc(0),
      storage: 'disk',
      created_at: f.createdAt.toISOString(),
      expires_at: f.expiresAt.toISOString(),
    })
    .execute();
}

/** The file's row while it has not expired (an expired one the pruner has not reached yet reads as gone); never its body. */
export async function getFile(db: Db, id: string, now: Date): Promise<FileRow | undefined> {
  return db
    .selectFrom('files')
    .select(['id', 'account_id', 'content_type', 'bytes', 'storage', 'created_at', 'expires_at'])
    .where('id', '=', id)
    .where('expires_at', '>', now.toISOString())
    .executeTakeFirst();
}

/** The bytes of a row made before the file store (at most 10 MiB: the migration deleted larger ones). */
export async function legacyBody(db: Db, id: string): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom('files')
    .select('body')
    .where('id', '=', id)
    .where('storage', '=', 'db')
    .executeTakeFirst();
  // SQLite hands blobs back as Buffers, PostgreSQL bytea too; a Uint8Array is made one without a copy.
  return row && (Buffer.isBuffer(row.body) ? row.body : Buffer.from(row.body as Uint8Array));
}

/** Up to `limit` expired files (to delete their bytes, then `deleteFiles`). */
export async function expiredFiles(db: Db, now: Date, limit: number): Promise<{ id: string; storage: string }[]> {
  return db
    .selectFrom('files')
    .select(['id', 'storage'])
    .where('expires_at', '<=', now.toISOString())
    .limit(limit)
    .execute();
}

/** Deletes these rows; returns how many were there (several pruners may race for the same ones). */
export async function deleteFiles(db: Db, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const r = await db.deleteFrom('files').where('id', 'in', ids).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Bytes the account's files take, expired ones included (their bytes are on disk until pruned). */
export async function accountBytes(db: Db, accountId: string): Promise<number> {
  const r = await db
    .selectFrom('files')
    .select(sql<number>`coalesce(sum(bytes), 0)`.as('total'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(r?.total ?? 0);
}

/** The account's oldest files, up to `limit`, but `keep`. */
export async function oldestFiles(
  db: Db,
  accountId: string,
  limit: number,
  keep?: string,
): Promise<{ id: string; bytes: number; storage: string }[]> {
  let q = db
    .selectFrom('files')
    .select(['id', 'bytes', 'storage'])
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit);
  if (keep) q = q.where('id', '!=', keep);
  return (await q.execute()).map((r) => ({ ...r, bytes: Number(r.bytes) }));
}

/** Accounts whose files take more than `maxBytes`, up to `limit`. */
export async function accountsOver(db: Db, maxBytes: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('files')
    .select('account_id')
    .where('account_id', 'is not', null)
    .groupBy('account_id')
    .having(sql`sum(bytes)`, '>', maxBytes)
    .limit(limit)
    .execute();
  return rows.map((r) => r.account_id!);
}

/** Which of these ids have a row (the file store's sweep keeps their bytes). */
export async function knownFiles(db: Db, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db.selectFrom('files').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}

/** Which of these ids are files still served at `now` (a cached result is good only while its files are). */
export async function liveFiles(db: Db, ids: string[], now: Date): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db
    .selectFrom('files')
    .select('id')
    .where('id', 'in', ids)
    .where('expires_at', '>', now.toISOString())
    .execute();
  return new Set(rows.map((r) => r.id));
}
