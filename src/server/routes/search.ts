import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { openapiRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';
import { SearchBody } from '../../contract/schemas.js';
import { parseBody } from '../../contract/validation.js';
import { searchWork } from '../../app/search.js';

export function searchRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post(
    '/search',
    openapiRoute(SearchBody, 'Live web search, re-ranked, with citations and quotable passages', docs.search),
    async (request, reply) => {
      const body = parseBody(SearchBody, request.body);
      const r = await withCredit(ctx, request, reply, searchWork(ctx, body));
      return { status: 'ok', query: r.query, results: r.results };
    },
  );
}
