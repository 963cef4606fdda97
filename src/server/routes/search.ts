import type { FastifyInstance } from 'fastify';
import { search } from '../../engine/index.js';
import { TrawlError } from '../../errors.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { openapiRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';
import { SearchBody } from '../../contract/schemas.js';
import { parseBody } from '../../contract/validation.js';
import { withinBudget } from '../budget.js';

export function searchRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post(
    '/search',
    openapiRoute(SearchBody, 'Live web search, re-ranked, with citations and quotable passages', docs.search),
    async (request, reply) => {
      const body = parseBody(SearchBody, request.body);
      const provider = ctx.engine.searchProvider;
      if (!provider)
        throw new TrawlError(
          'fetch_failed',
          `search is not configured on this server: ${ctx.engine.searchProviderError ?? 'no provider'}`,
        );
      const r = await withCredit(
        ctx,
        request,
        reply,
        withinBudget(body.timeout_ms ?? 20_000, (signal, engine) =>
          search(engine, provider, {
            query: body.query,
            limit: body.limit,
            scrape: body.scrape,
            country: body.country?.toUpperCase(),
            language: body.language?.toLowerCase(),
            timeoutMs: body.timeout_ms,
            signal,
          }),
        ),
      );
      return { status: 'ok', query: r.query, results: r.results };
    },
  );
}
