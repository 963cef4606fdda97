import type { FastifyInstance } from 'fastify';
import { scrape } from '../../engine/index.js';
import { FREE_WARNING, nothingCameBack } from '../../engine/scrape.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { ScrapeBody } from '../schemas.js';
import { formatsAndSchema, parseBody } from '../validation.js';
import { checkPageOptions, enginePageOptions, publicBase, scrapeStores } from '../scrape-options.js';
import { openapiRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';
import { withinBudget } from '../budget.js';

export function scrapeRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post(
    '/scrape',
    openapiRoute(ScrapeBody, 'Scrape one URL to markdown, html, links and schema JSON', docs.scrape),
    async (request, reply) => {
      const body = parseBody(ScrapeBody, request.body);
      const { schema } = formatsAndSchema(body.formats, body.schema);
      checkPageOptions(body);
      const accountId = request.auth!.accountId;
      const stores = scrapeStores(ctx, accountId, publicBase(ctx, request), body.max_age);
      const result = await withCredit(
        ctx,
        request,
        reply,
        withinBudget(body.timeout_ms ?? 30_000, (signal, engine) =>
          scrape(engine, {
            ...enginePageOptions(body),
            ...stores,
            url: body.url,
            schema,
            onlyMainContent: body.only_main_content,
            render: body.render,
            timeoutMs: body.timeout_ms,
            waitFor: body.wait_for,
            signal,
            llm: ctx.engine.llm,
            pdf: body.pdf?.max_pages !== undefined ? { maxPages: body.pdf.max_pages } : undefined,
          }),
        ),
        // An answer with nothing at all in it (a page without text, after every fallback) is free.
        nothingCameBack,
      );
      const { url, metadata, sources, warnings: given, ...content } = result;
      const warnings = nothingCameBack(result) ? [...(given ?? []), FREE_WARNING] : given;
      return {
        status: 'ok',
        url,
        ...content,
        ...(sources && Object.keys(sources).length ? { sources } : {}),
        metadata,
        ...(warnings ? { warnings } : {}),
      };
    },
  );
}
