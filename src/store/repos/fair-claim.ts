/**
 * The per-account fair claim of an outbox (monitor deliveries, job events): due rows are taken
 * oldest first while their account has room under `cap` (rows it has in flight, `open`, count
 * against it); an account that reaches its cap is left out of the next search, so one account's
 * backlog to a slow or hanging receiver neither fills the batch nor hides others' rows behind it.
 * At most `rounds` searches (each for `askFactor` × what is still wanted), in the caller's
 * transaction; `search` adds the dialect's row locks.
 */
export interface FairClaimOptions<R> {
  /** Rows each account has in flight now (moved on as rows are picked). */
  open: Map<string, number>;
  cap: number;
  limit: number;
  /** Due rows, oldest first, leaving out these accounts and ids, at most `asked`. */
  search: (exclude: { accounts: string[]; ids: string[] }, asked: number) => Promise<R[]>;
  /** @default 1 */
  askFactor?: number;
  /** @default 4 */
  rounds?: number;
}

export async function fairClaim<R extends { id: string; account_id: string }>(o: FairClaimOptions<R>): Promise<R[]> {
  const { open, cap, limit } = o;
  const full = new Set([...open].filter(([, n]) => n >= cap).map(([a]) => a));
  const picked: R[] = [];
  const seen = new Set<string>();
  for (let round = 0; round < (o.rounds ?? 4) && picked.length < limit; round++) {
    const asked = (limit - picked.length) * (o.askFactor ?? 1);
    const due = await o.search({ accounts: [...full], ids: [...seen] }, asked);
    let capped = false;
    for (const d of due) {
      seen.add(d.id);
      if (picked.length >= limit) break;
      const n = open.get(d.account_id) ?? 0;
      if (n >= cap) {
        full.add(d.account_id);
        capped = true;
        continue;
      }
      open.set(d.account_id, n + 1);
      picked.push(d);
    }
    // Look again without the accounts that just reached their cap, while the claim has room.
    if (!capped || due.length < asked) break;
  }
  return picked;
}
