import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Account, Database } from '../tables.js';
import { hashPassword, newId, newSigningSecret } from '../ids.js';

export type Db = Kysely<Database>;

export async function createAccount(
  db: Db,
  input: { email: string; password?: string; credits?: number },
): Promise<Account> {
  const row: Account = {
    id: newId('acc'),
    email: input.email.trim().toLowerCase(),
    password_hash: input.password ? await hashPassword(input.password) : null,
    credits: input.credits ?? 0,
    signing_secret: newSigningSecret(),
    created_at: new Date().toISOString(),
    rate_limit_ceiling: null,
    previous_signing_secret: null,
    previous_secret_expires_at: null,
  };
  await db.insertInto('accounts').values(row).execute();
  return row;
}

export const findAccountByEmail = (db: Db, email: string) =>
  db.selectFrom('accounts').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();

export const findAccountById = (db: Db, id: string) =>
  db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();

/**
 * Take one credit if there is one, in a single conditional UPDATE: the database serialises
 * concurrent reservations, so the balance can never go below zero.
 */
export async function reserveCredit(db: Db, accountId: string, amount = 1): Promise<boolean> {
  const r = await db
    .updateTable('accounts')
    .set({ credits: sql`credits - ${amount}` })
    .where('id', '=', accountId)
    .where('credits', '>=', amount)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function refundCredit(db: Db, accountId: string, amount = 1): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ credits: sql`credits + ${amount}` })
    .where('id', '=', accountId)
    .execute();
}

export async function addCredits(db: Db, accountId: string, amount: number): Promise<number> {
  const r = await db
    .updateTable('accounts')
    .set({ credits: sql`credits + ${amount}` })
    .where('id', '=', accountId)
    .returning('credits')
    .executeTakeFirstOrThrow();
  return Number(r.credits);
}

/** The account's rate-limit ceiling, or the deployment default when the operator set none. */
export const rateLimitCeiling = (account: { rate_limit_ceiling: number | null }, fallback: number): number =>
  account.rate_limit_ceiling ?? fallback;

/** Operator only (the CLI): the rate limit no key of the account may exceed; null = the default. */
export async function setRateLimitCeiling(db: Db, accountId: string, ceiling: number | null): Promise<void> {
  await db.updateTable('accounts').set({ rate_limit_ceiling: ceiling }).where('id', '=', accountId).execute();
}

/** Keys of the account whose own rate limit is above `ceiling` (shown to the operator who lowers it). */
export async function countKeysAbove(db: Db, accountId: string, ceiling: number): Promise<number> {
  const r = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .where('rate_limit_per_minute', '>', ceiling)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * A new signing secret at once; the one it replaces keeps signing beside it for `overlapMs`
 * (receivers switch over without rejecting a delivery). Rotating again inside the window drops
 * the oldest: two secrets at most.
 */
export async function rotateSigningSecret(db: Db, accountId: string, overlapMs: number): Promise<string> {
  const secret = newSigningSecret();
  await db
    .updateTable('accounts')
    .set((eb) => ({
      previous_signing_secret: overlapMs > 0 ? eb.ref('signing_secret') : null,
      previous_secret_expires_at: overlapMs > 0 ? new Date(Date.now() + overlapMs).toISOString() : null,
      signing_secret: secret,
    }))
    .where('id', '=', accountId)
    .execute();
  return secret;
}

/** A new password hash (set by the owner, the operator, or a re-hash at today's cost on login). */
export async function setPasswordHash(db: Db, accountId: string, hash: string): Promise<void> {
  await db.updateTable('accounts').set({ password_hash: hash }).where('id', '=', accountId).execute();
}
