import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { openapiRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';
import { MapBody } from '../../contract/schemas.js';
import { parseBody } from '../../contract/validation.js';
import { mapWork } from '../../app/map.js';

export function mapRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post(
    '/map',
    openapiRoute(MapBody, "A site's URLs from its sitemaps and a fast link harvest, no content", docs.map),
    async (request, reply) => {
      const body = parseBody(MapBody, request.body);
      const r = await withCredit(ctx, request, reply, mapWork(body));
      return { status: 'ok', links: r.links, total: r.total };
    },
  );
}
