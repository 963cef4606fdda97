import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { docs } from '../openapi-responses.js';
import { bodyRoute } from './body-route.js';
import { ExtractBody } from '../../contract/schemas.js';
import { extractWork } from '../../app/extract.js';

export function extractRoutes(app: FastifyInstance, ctx: ServerContext): void {
  bodyRoute(
    app,
    '/extract',
    ExtractBody,
    'Schema-guided JSON from 1–20 URLs, merged',
    docs.extract,
    async (body, request, reply) => {
      const r = await withCredit(ctx, request, reply, extractWork(ctx, body));
      return { status: 'ok', data: r.data, results: r.results };
    },
  );
}
