/** Dashboard sessions: created at login, found by the cookie token's hash, ended at logout or expiry. */
import { randomBase62, sha256Hex } from '../ids.js';
import type { Db } from './accounts.js';

export const SESSION_DAYS = 14;

export async function createSession(
  db: Db,
  accountId: string,
): Promise<{ token: string; csrf: string; expiresAt: string }> {
  const token = randomBase62(43);
  const csrf = randomBase62(32);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + SESSION_DAYS * 86_400_000).toISOString();
  await db
    .insertInto('sessions')
    .values({ id: sha256Hex(token), account_id: accountId, csrf, created_at: now.toISOString(), expires_at: expiresAt })
    .execute();
  return { token, csrf, expiresAt };
}

export async function findSession(db: Db, token: string) {
  const row = await db.selectFrom('sessions').selectAll().where('id', '=', sha256Hex(token)).executeTakeFirst();
  if (!row || row.expires_at <= new Date().toISOString()) return undefined;
  return row;
}

export async function endSession(db: Db, token: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', sha256Hex(token)).execute();
}

/** After a password change every other session of the account ends. */
export async function endOtherSessions(db: Db, accountId: string, keepToken: string): Promise<void> {
  await db.deleteFrom('sessions').where('account_id', '=', accountId).where('id', '<>', sha256Hex(keepToken)).execute();
}

/** Ends every session of an account (its password was reset). */
export async function endAllSessions(db: Db, accountId: string): Promise<void> {
  await db.deleteFrom('sessions').where('account_id', '=', accountId).execute();
}
