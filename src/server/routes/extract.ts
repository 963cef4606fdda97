import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { openapiRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';
import { ExtractBody } from '../../contract/schemas.js';
import { parseBody } from '../../contract/validation.js';
import { extractWork } from '../../app/extract.js';

export function extractRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post(
    '/extract',
    openapiRoute(ExtractBody, 'Schema-guided JSON from 1–20 URLs, merged', docs.extract),
    async (request, reply) => {
      const body = parseBody(ExtractBody, request.body);
      const r = await withCredit(ctx, request, reply, extractWork(ctx, body));
      return { status: 'ok', data: r.data, results: r.results };
    },
  );
}
