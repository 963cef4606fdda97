/**
 * Files kept for accounts (issue 39): the file store's bytes and the files table's rows, kept in
 * step. Saved bytes first (under a temporary name), then the row, then the bytes renamed into
 * place; deleted bytes first, then the row. A crash between two steps leaves a temporary file or a
 * row whose bytes are missing (a 404 until the pruner deletes it), never bytes no row knows —
 * and the sweep removes even those. Each account holds at most TRAWL_FILES_MAX_MB_PER_ACCOUNT:
 * saving past it deletes the account's oldest files (their URLs answer 404, as expired ones do).
 */
import type { Readable } from 'node:stream';
import type { Store } from './db.js';
import type { SweepStats } from './file-store.js';
import * as repo from './repos/files.js';

export interface KeepOptions {
  id: string;
  accountId?: string;
  contentType: string;
  retentionHours: number;
  /** The account's bound; its oldest files go when a save passes it. */
  maxAccountBytes?: number;
}

/** Stores the bytes and their row; returns when the file expires. */
export async function keepFile(store: Store, bytes: Buffer, o: KeepOptions): Promise<{ expiresAt: Date }> {
  const now = new Date();
  const expiresAt = new Date(now.getTime() + o.retentionHours * 3600_000);
  const staged = await store.files.stage(o.id, bytes);
  try {
    await repo.saveFile(store.db, {
      id: o.id,
      accountId: o.accountId ?? null,
      contentType: o.contentType,
      bytes: bytes.length,
      createdAt: now,
      expiresAt,
    });
  } catch (e) {
    await staged.discard();
    throw e;
  }
  try {
    await staged.commit();
  } catch (e) {
    await repo.deleteFiles(store.db, [o.id]).catch(() => undefined);
    await staged.discard();
    throw e;
  }
  if (o.accountId && o.maxAccountBytes !== undefined)
    await boundAccount(store, o.accountId, o.maxAccountBytes, o.id).catch(() => undefined);
  return { expiresAt };
}

export interface OpenedFile {
  row: repo.FileRow;
  /** The bytes as a stream from the file store, and how many. */
  stream?: Readable;
  size: number;
  /** A row made before the file store: its bytes, read from the database (≤ 10 MiB). */
  body?: Buffer;
}

/** A file still served at `now`, ready to send; undefined when there is none (or its bytes are gone). */
export async function openFile(store: Store, id: string, now: Date): Promise<OpenedFile | undefined> {
  const row = await repo.getFile(store.db, id, now);
  if (!row) return undefined;
  if (row.storage === 'db') {
    const body = await repo.legacyBody(store.db, id);
    return body && { row, body, size: body.length };
  }
  const f = await store.files.open(id);
  return f && { row, stream: f.stream, size: f.size };
}

/** Deletes these files, bytes first; returns the rows deleted. */
export async function dropFiles(store: Store, files: { id: string; storage: string }[]): Promise<number> {
  if (!files.length) return 0;
  await store.files.remove(files.filter((f) => f.storage === 'disk').map((f) => f.id));
  return repo.deleteFiles(
    store.db,
    files.map((f) => f.id),
  );
}

/** Up to `limit` expired files deleted; returns how many. */
export async function pruneExpiredFiles(store: Store, now: Date, limit: number): Promise<number> {
  return dropFiles(store, await repo.expiredFiles(store.db, now, limit));
}

/** The account's oldest files deleted while it holds more than `maxBytes` (never `keep`); returns how many. */
export async function boundAccount(store: Store, accountId: string, maxBytes: number, keep?: string): Promise<number> {
  let over = (await repo.accountBytes(store.db, accountId)) - maxBytes;
  let deleted = 0;
  while (over > 0) {
    const oldest = await repo.oldestFiles(store.db, accountId, 100, keep);
    if (!oldest.length) break;
    const doomed: typeof oldest = [];
    for (const f of oldest) {
      if (over <= 0) break;
      doomed.push(f);
      over -= f.bytes;
    }
    deleted += await dropFiles(store, doomed);
  }
  return deleted;
}

/** Every account over `maxBytes` (up to `limit` of them) brought within it; returns the files deleted. */
export async function boundAccounts(store: Store, maxBytes: number, limit: number): Promise<number> {
  let deleted = 0;
  for (const account of await repo.accountsOver(store.db, maxBytes, limit))
    deleted += await boundAccount(store, account, maxBytes);
  return deleted;
}

/** Temporary files of writes that never finished, and bytes no row knows, older than `before`. */
export function sweepFiles(store: Store, before: Date): Promise<SweepStats> {
  return store.files.sweep(before, (ids) => repo.knownFiles(store.db, ids));
}
