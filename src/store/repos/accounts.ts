import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Account, Database } from '../tables.js';
import { hashPassword, newId, newSigningSecret } from '../ids.js';

export type Db = Kysely<Database>;

export async function createAccount(db: Db, input: { email: string; password?: string; credits?: number }): Promise<Account> {
  const row: Account = {
    id: newId('acc'),
    email: input.email.trim().toLowerCase(),
    password_hash: input.password ? await hashPassword(input.password) : null,
    credits: input.credits ?? 0,
    signing_secret: newSigningSecret(),
    created_at: new Date().toISOString(),
  };
  await db.insertInto('accounts').values(row).execute();
  return row;
}

export const findAccountByEmail = (db: Db, email: string) =>
  db.selectFrom('accounts').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();

export const findAccountById = (db: Db, id: string) => db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();

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
  await db.updateTable('accounts').set({ credits: sql`credits + ${amount}` }).where('id', '=', accountId).execute();
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

export async function rotateSigningSecret(db: Db, accountId: string): Promise<string> {
  const secret = newSigningSecret();
  await db.updateTable('accounts').set({ signing_secret: secret }).where('id', '=', accountId).execute();
  return secret;
}
