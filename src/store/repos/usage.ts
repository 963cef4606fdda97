import type { NewUsage } from '../tables.js';
import type { Db } from './accounts.js';

export async function recordUsage(db: Db, row: NewUsage): Promise<void> {
  await db.insertInto('usage').values(row).execute();
}

export const listUsage = (db: Db, accountId: string, limit = 100) =>
  db.selectFrom('usage').selectAll().where('account_id', '=', accountId).orderBy('id', 'desc').limit(limit).execute();

/** Requests and credits per UTC day over the last `days` days (days without requests included, as zeros). */
export async function dailyUsage(db: Db, accountId: string, days: number): Promise<{ day: string; requests: number; credits: number }[]> {
  const since = new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const rows = await db
    .selectFrom('usage')
    .select((eb) => [eb.fn<string>('substr', ['created_at', eb.val(1), eb.val(10)]).as('day'), eb.fn.countAll<number>().as('requests'), eb.fn.sum<number>('credits').as('credits')])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', since)
    .groupBy('day')
    .execute();
  const byDay = new Map(rows.map((r) => [r.day, r]));
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(Date.parse(since) + i * 86_400_000).toISOString().slice(0, 10);
    const r = byDay.get(day);
    return { day, requests: Number(r?.requests ?? 0), credits: Number(r?.credits ?? 0) };
  });
}

/** Failed requests of the last `days` days by HTTP status. */
export const errorsByStatus = (db: Db, accountId: string, days: number) =>
  db
    .selectFrom('usage')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .where('status', '>=', 400)
    .where('created_at', '>=', new Date(Date.now() - days * 86_400_000).toISOString())
    .groupBy('status')
    .orderBy('status')
    .execute();
