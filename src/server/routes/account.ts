import type { FastifyInstance } from 'fastify';
import { TrawlError } from '../../errors.js';
import { accounts } from '../../store/index.js';
import type { ServerContext } from '../context.js';
import { docRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';

export function accountRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get(
    '/account',
    docRoute('The calling account: id, email, credits (costs no credit)', docs.account),
    async (request) => {
      const row = await accounts.findAccountById(ctx.store.db, request.auth!.accountId);
      if (!row) throw new TrawlError('unauthorized');
      return { account_id: row.id, email: row.email, credits: Number(row.credits) };
    },
  );
}
