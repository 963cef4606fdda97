/**
 * GET /firecrawl/{v1,v2}/team/credit-usage: the account's credits (Trawl has no plans or billing
 * periods, so those fields are null). Costs no credit, like GET /v1/account.
 */
import type { FastifyInstance } from 'fastify';
import { accountOf } from '../../app/account.js';
import type { ServerContext } from '../context.js';
import type { Version } from '../../contract/firecrawl/scrape-options.js';
import { HIDDEN } from './shared.js';

export function usageRoutes(app: FastifyInstance, ctx: ServerContext, version: Version): void {
  app.get(`/${version}/team/credit-usage`, HIDDEN, async (request) => {
    const { credits } = await accountOf(ctx, request.auth!.accountId);
    if (version === 'v1') return { success: true, data: { remaining_credits: credits } };
    return { success: true, data: { remainingCredits: credits, billingPeriodStart: null, billingPeriodEnd: null } };
  });
}
