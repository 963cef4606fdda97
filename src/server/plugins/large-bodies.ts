/**
 * A body over BODY_LIMIT (only the batch routes take one, up to 80 MiB) is answered from its
 * headers before a byte of it is read, once the key and the rate limit passed:
 * - an account without a credit gets 402 at once: reading, parsing and validating 80 MB for a
 *   request that cannot be paid for is work done for nothing (the contract's order — body, then
 *   credits — holds for every body up to 1 MiB);
 * - an account may have LARGE_BODIES_PER_ACCOUNT such bodies in flight (arriving, waiting for a
 *   body worker, being read); another one is 429 until one is answered, so no account holds the
 *   memory of dozens of them.
 * A body of unannounced length (chunked) counts as large: its size is known only once read.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TrawlError } from '../../errors.js';
import { accounts } from '../../store/index.js';
import { BODY_LIMIT } from '../../contract/limits.js';
import type { ServerContext } from '../context.js';

export const LARGE_BODIES_PER_ACCOUNT = 2;

/** Whether the request's headers announce a body over BODY_LIMIT, or one of unknown length. */
export function announcesLargeBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  if (length !== undefined) return Number(length) > BODY_LIMIT;
  return request.headers['transfer-encoding'] !== undefined;
}

/** Large bodies in flight per account, per server (the /v1 and /firecrawl scopes share them). */
const inFlightOf = new WeakMap<ServerContext, Map<string, number>>();

export function makeLargeBodyGate(ctx: ServerContext) {
  const inFlight = inFlightOf.get(ctx) ?? new Map<string, number>();
  inFlightOf.set(ctx, inFlight);
  return async function admitLargeBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // Only routes with a body reader take large bodies; elsewhere the 1 MiB limit answers 413 unread.
    if (!request.routeOptions.config?.bodyReader || !announcesLargeBody(request)) return;
    const accountId = request.auth!.accountId;
    const account = await accounts.findAccountById(ctx.store.db, accountId);
    if (!account || Number(account.credits) < 1) throw new TrawlError('insufficient_credits');
    const n = inFlight.get(accountId) ?? 0;
    if (n >= LARGE_BODIES_PER_ACCOUNT) throw new TrawlError('rate_limited', undefined, { fields: { retry_after: 1 } });
    inFlight.set(accountId, n + 1);
    // Answered or cut off, the body no longer counts.
    reply.raw.once('close', () => {
      const left = (inFlight.get(accountId) ?? 1) - 1;
      if (left > 0) inFlight.set(accountId, left);
      else inFlight.delete(accountId);
    });
  };
}
