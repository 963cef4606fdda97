/**
 * Usage: one row a request, kept a day; the pruner then sums older rows per hour into
 * usage_hourly. Reads that span more than a day add both in one statement (one snapshot of the
 * database), so totals stay exact while rows move from one table to the other.
 */
import { sql } from 'kysely';
import type { NewUsage } from '../tables.js';
import type { Db } from './accounts.js';

export async function recordUsage(db: Db, row: NewUsage): Promise<void> {
  await db.insertInto('usage').values(row).execute();
}

/** Latest requests, one by one (the last day's: older ones are only in hourly sums). */
export const listUsage = (db: Db, accountId: string, limit = 100) =>
  db.selectFrom('usage').selectAll().where('account_id', '=', accountId).orderBy('id', 'desc').limit(limit).execute();

/** Requests and credits per UTC day over the last `days` days (days without requests included, as zeros). */
export async function dailyUsage(
  db: Db,
  accountId: string,
  days: number,
  now = new Date(),
): Promise<{ day: string; requests: number; credits: number }[]> {
  const since = new Date(now.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const recent = db
    .selectFrom('usage')
    .select((eb) => [
      eb.fn<string>('substr', ['created_at', sql.lit(1), sql.lit(10)]).as('day'),
      sql<number>`1`.as('requests'),
      'credits',
    ])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', since);
  const hourly = db
    .selectFrom('usage_hourly')
    .select((eb) => [eb.fn<string>('substr', ['hour', sql.lit(1), sql.lit(10)]).as('day'), 'requests', 'credits'])
    .where('account_id', '=', accountId)
    .where('hour', '>=', since);
  const rows = await db
    .selectFrom(recent.unionAll(hourly).as('t'))
    .select((eb) => [
      't.day',
      eb.fn.sum<number>('t.requests').as('requests'),
      eb.fn.sum<number>('t.credits').as('credits'),
    ])
    .groupBy('t.day')
    .execute();
  const byDay = new Map(rows.map((r) => [r.day, r]));
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(Date.parse(since) + i * 86_400_000).toISOString().slice(0, 10);
    const r = byDay.get(day);
    return { day, requests: Number(r?.requests ?? 0), credits: Number(r?.credits ?? 0) };
  });
}

/** Failed requests of the last `days` days (from the start of that hour) by HTTP status. */
export async function errorsByStatus(
  db: Db,
  accountId: string,
  days: number,
  now = new Date(),
): Promise<{ status: number; n: number }[]> {
  // Hour-aligned, like the hourly sums: the same requests are counted before and after they are summed.
  const since = `${new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 13)}:00:00.000Z`;
  const recent = db
    .selectFrom('usage')
    .select(['status', sql<number>`1`.as('n')])
    .where('account_id', '=', accountId)
    .where('status', '>=', 400)
    .where('created_at', '>=', since);
  const hourly = db
    .selectFrom('usage_hourly')
    .select(['status', 'requests as n'])
    .where('account_id', '=', accountId)
    .where('status', '>=', 400)
    .where('hour', '>=', since);
  const rows = await db
    .selectFrom(recent.unionAll(hourly).as('t'))
    .select((eb) => ['t.status', eb.fn.sum<number>('t.n').as('n')])
    .groupBy('t.status')
    .orderBy('t.status')
    .execute();
  return rows.map((r) => ({ status: Number(r.status), n: Number(r.n) }));
}
