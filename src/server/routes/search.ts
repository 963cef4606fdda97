import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { docs } from '../openapi-responses.js';
import { bodyRoute } from './body-route.js';
import { SearchBody } from '../../contract/schemas.js';
import { searchWork } from '../../app/search.js';

export function searchRoutes(app: FastifyInstance, ctx: ServerContext): void {
  bodyRoute(
    app,
    '/search',
    SearchBody,
    'Live web search, re-ranked, with citations and quotable passages',
    docs.search,
    async (body, request, reply) => {
      const r = await withCredit(ctx, request, reply, searchWork(ctx, body));
      return { status: 'ok', query: r.query, results: r.results };
    },
  );
}
