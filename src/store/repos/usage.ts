import type { NewUsage } from '../tables.js';
import type { Db } from './accounts.js';

export async function recordUsage(db: Db, row: NewUsage): Promise<void> {
  await db.insertInto('usage').values(row).execute();
}

export const listUsage = (db: Db, accountId: string, limit = 100) =>
  db.selectFrom('usage').selectAll().where('account_id', '=', accountId).orderBy('id', 'desc').limit(limit).execute();
