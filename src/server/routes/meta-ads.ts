import type { FastifyInstance } from 'fastify';
import { metaAds } from '../../engine/meta-ads/index.js';
import { metaConfig } from '../../config.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { docs } from '../openapi-responses.js';
import { bodyRoute } from './body-route.js';
import { MetaAdsBody } from '../../contract/schemas.js';
import { withinBudget } from '../budget.js';

export function metaAdsRoutes(app: FastifyInstance, ctx: ServerContext): void {
  bodyRoute(
    app,
    '/meta-ads',
    MetaAdsBody,
    "An advertiser's ads from the Facebook/Instagram Ad Library",
    docs.metaAds,
    async (body, request, reply) => {
      const r = await withCredit(
        ctx,
        request,
        reply,
        withinBudget(body.timeout_ms ?? 60_000, (signal) =>
          metaAds(
            ctx.engine.http,
            {
              advertiser: body.advertiser,
              country: body.country,
              activeStatus: body.active_status,
              platforms: body.platforms,
              limit: body.limit,
              timeoutMs: body.timeout_ms,
              signal,
            },
            metaConfig(ctx.config),
          ),
        ),
      );
      return {
        status: 'ok',
        advertiser: r.advertiser,
        country: r.country,
        page: r.page,
        ads: r.ads,
        total: r.total,
        source: r.source,
      };
    },
  );
}
