/**
 * The relay's side of the outbox: due deliveries handed to the queue, fair between accounts
 * (../fair-claim.ts), and handed back when the queue refuses them.
 */
import { PostgresAdapter } from 'kysely';
import type { Db } from '../accounts.js';
import { fairClaim } from '../fair-claim.js';

/**
 * The relay's claim: pending deliveries whose next attempt is due and which no relay handed to the
 * queue in the last `handMs` (id, attempts). Claimed rows are marked handed, so a batch the queue
 * lost (or a worker never took) rotates out and others get their turn; past `handMs` they are
 * handed again. Racing relays on PostgreSQL skip each other's rows.
 *
 * Fair between accounts: an account has at most `accountCap` deliveries in flight (being sent, or
 * handed and not yet taken), so one account's backlog to a slow or hanging receiver cannot fill
 * the delivery lanes while another account's deliveries wait behind it.
 */
export async function handDueDeliveries(
  db: Db,
  now: Date,
  limit: number,
  handMs: number,
  accountCap = Infinity,
): Promise<{ id: string; attempts: number }[]> {
  const nowIso = now.toISOString();
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (!Number.isFinite(accountCap)) {
    let pick = dueUnhanded(db, nowIso).select('id').limit(limit);
    if (postgres) pick = pick.forUpdate().skipLocked();
    return db
      .updateTable('webhook_deliveries')
      .set({ handed_until: new Date(now.getTime() + handMs).toISOString() })
      .where('id', 'in', pick)
      .returning(['id', 'attempts'])
      .execute();
  }
  return db.transaction().execute(async (trx) => {
    const open = new Map((await inFlight(trx, nowIso)).map((r) => [r.account_id, Number(r.n)]));
    const picked = (
      await fairClaim({
        open,
        cap: accountCap,
        limit,
        search: (exclude, asked) => {
          let q = dueUnhanded(trx, nowIso).select(['id', 'account_id']).limit(asked);
          if (exclude.accounts.length) q = q.where('account_id', 'not in', exclude.accounts);
          if (exclude.ids.length) q = q.where('id', 'not in', exclude.ids);
          if (postgres) q = q.forUpdate().skipLocked();
          return q.execute();
        },
      })
    ).map((d) => d.id);
    if (!picked.length) return [];
    return trx
      .updateTable('webhook_deliveries')
      .set({ handed_until: new Date(now.getTime() + handMs).toISOString() })
      .where('id', 'in', picked)
      .returning(['id', 'attempts'])
      .execute();
  });
}

const dueUnhanded = (db: Db, nowIso: string) =>
  db
    .selectFrom('webhook_deliveries')
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', nowIso)
    .where((eb) => eb.or([eb('handed_until', 'is', null), eb('handed_until', '<', nowIso)]))
    .orderBy('next_attempt_at');

/** Deliveries in flight per account: being sent, or handed to the queue and not yet taken. */
const inFlight = (db: Db, nowIso: string) =>
  db
    .selectFrom('webhook_deliveries')
    .select(['account_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where((eb) =>
      eb.or([eb('state', '=', 'sending'), eb.and([eb('state', '=', 'pending'), eb('handed_until', '>=', nowIso)])]),
    )
    .groupBy('account_id')
    .execute();

/** Deliveries the queue refused: no longer handed, so the next pass takes them again. */
export async function releaseHanded(db: Db, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await db.updateTable('webhook_deliveries').set({ handed_until: null }).where('id', 'in', ids).execute();
}
