import type { FastifyInstance } from 'fastify';
import { accountOf } from '../../app/account.js';
import type { ServerContext } from '../context.js';
import { docRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';

export function accountRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get(
    '/account',
    docRoute('The calling account: id, email, credits (costs no credit)', docs.account),
    async (request) => {
      const a = await accountOf(ctx, request.auth!.accountId);
      return { account_id: a.id, email: a.email, credits: a.credits };
    },
  );
}
