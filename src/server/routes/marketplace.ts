import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../../errors.js';
import { isMarketplaceId, marketplaceProduct, MARKETPLACE_IDS, urlBelongsTo } from '../../engine/marketplace/index.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { docs } from '../openapi-responses.js';
import { bodyRoute } from './body-route.js';
import { MarketplaceBody } from '../../contract/schemas.js';
import { withinBudget } from '../budget.js';

export function marketplaceRoutes(app: FastifyInstance, ctx: ServerContext): void {
  bodyRoute(
    app,
    '/marketplace',
    MarketplaceBody,
    'Product record from an Amazon, Walmart, eBay, Etsy, Target or Best Buy page',
    docs.marketplace,
    async (body, request, reply) => {
      if (!isMarketplaceId(body.marketplace))
        throw invalidRequest(
          `marketplace: "${body.marketplace.slice(0, 40)}" is not a marketplace id; use one of ${MARKETPLACE_IDS.join(', ')}`,
        );
      const url = new URL(body.url);
      if (!urlBelongsTo(url, body.marketplace))
        throw invalidRequest(
          `url: ${url.hostname}${url.pathname.slice(0, 40)} is not a page of marketplace ${body.marketplace}`,
        );
      const r = await withCredit(
        ctx,
        request,
        reply,
        withinBudget(body.timeout_ms ?? 30_000, (signal, engine) =>
          marketplaceProduct(engine, {
            marketplace: body.marketplace,
            url: body.url,
            mode: body.mode,
            render: body.render,
            timeoutMs: body.timeout_ms,
            signal,
          }),
        ),
      );
      // A search-results or category page answers its products (beyond the contract).
      if (Array.isArray(r.product.products))
        return { status: 'ok', marketplace: r.marketplace, products: r.product.products, sources: r.sources };
      return { status: 'ok', marketplace: r.marketplace, product: r.product, sources: r.sources };
    },
  );
}
