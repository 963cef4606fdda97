/** The calling account as the API shows it (GET /v1/account, Firecrawl's credit usage): costs no credit. */
import { TrawlError } from '../errors.js';
import { accounts } from '../store/index.js';
import type { AppContext } from './context.js';

export interface AccountView {
  id: string;
  email: string;
  credits: number;
}

/** The account a key belongs to; 401 when it is gone (deleted after the key was checked). */
export async function accountOf(ctx: AppContext, accountId: string): Promise<AccountView> {
  const row = await accounts.findAccountById(ctx.store.db, accountId);
  if (!row) throw new TrawlError('unauthorized');
  return { id: row.id, email: row.email, credits: Number(row.credits) };
}
