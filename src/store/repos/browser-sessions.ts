/**
 * Saved browser sessions (issue 44): rows of one account, found by name. The state and the recipe
 * arrive sealed (the app seals them); this module never sees them in clear.
 */
import { newId } from '../ids.js';
import type { BrowserSession } from '../tables.js';
import type { Db } from './accounts.js';

export interface NewBrowserSession {
  accountId: string;
  name: string;
  sites: string[];
  stateSealed: string;
  recipeSealed?: string;
}

/** Creates the session, or returns undefined when the account already has one of that name. */
export async function createBrowserSession(db: Db, s: NewBrowserSession): Promise<BrowserSession | undefined> {
  const now = new Date().toISOString();
  const row = {
    id: newId('bs'),
    account_id: s.accountId,
    name: s.name,
    sites: JSON.stringify(s.sites),
    state_sealed: s.stateSealed,
    recipe_sealed: s.recipeSealed ?? null,
    status: 'active' as const,
    created_at: now,
    updated_at: now,
    last_used_at: null,
    last_refreshed_at: s.recipeSealed ? now : null,
    expired_at: null,
  };
  const inserted = await db
    .insertInto('browser_sessions')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
    .returningAll()
    .executeTakeFirst();
  return inserted;
}

export const countBrowserSessions = async (db: Db, accountId: string): Promise<number> =>
  Number(
    (
      await db
        .selectFrom('browser_sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirst()
    )?.n ?? 0,
  );

export async function findBrowserSession(db: Db, accountId: string, name: string): Promise<BrowserSession | undefined> {
  return db
    .selectFrom('browser_sessions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .executeTakeFirst();
}

export async function listBrowserSessions(db: Db, accountId: string): Promise<BrowserSession[]> {
  return db.selectFrom('browser_sessions').selectAll().where('account_id', '=', accountId).orderBy('name').execute();
}

export async function deleteBrowserSession(db: Db, accountId: string, name: string): Promise<boolean> {
  const r = await db
    .deleteFrom('browser_sessions')
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** After a use: the state the site left (when it changed) and the time. */
export async function sessionUsed(db: Db, id: string, stateSealed?: string): Promise<void> {
  const now = new Date().toISOString();
  await db
    .updateTable('browser_sessions')
    .set({ last_used_at: now, ...(stateSealed ? { state_sealed: stateSealed, updated_at: now } : {}) })
    .where('id', '=', id)
    .execute();
}

/** After a login: the fresh state, active again. */
export async function sessionRefreshed(db: Db, id: string, stateSealed: string): Promise<void> {
  const now = new Date().toISOString();
  await db
    .updateTable('browser_sessions')
    .set({ state_sealed: stateSealed, status: 'active', updated_at: now, last_refreshed_at: now })
    .where('id', '=', id)
    .execute();
}

/** An automatic login is about to run (a failed or useless one holds the next off). */
export async function sessionLoginTried(db: Db, id: string): Promise<void> {
  await db
    .updateTable('browser_sessions')
    .set({ login_tried_at: new Date().toISOString() })
    .where('id', '=', id)
    .execute();
}

export async function sessionExpired(db: Db, id: string): Promise<void> {
  const now = new Date().toISOString();
  await db
    .updateTable('browser_sessions')
    .set({ status: 'expired', expired_at: now, updated_at: now })
    .where('id', '=', id)
    .execute();
}
