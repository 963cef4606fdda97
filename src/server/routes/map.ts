import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { docs } from '../openapi-responses.js';
import { bodyRoute } from './body-route.js';
import { MapBody } from '../../contract/schemas.js';
import { mapWork } from '../../app/map.js';

export function mapRoutes(app: FastifyInstance, ctx: ServerContext): void {
  bodyRoute(
    app,
    '/map',
    MapBody,
    "A site's URLs from its sitemaps and a fast link harvest, no content",
    docs.map,
    async (body, request, reply) => {
      const r = await withCredit(ctx, request, reply, mapWork(body));
      return { status: 'ok', links: r.links, total: r.total };
    },
  );
}
