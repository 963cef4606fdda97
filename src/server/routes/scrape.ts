import type { FastifyInstance } from 'fastify';
import { scrape } from '../../engine/index.js';
import { checkProxyTier, isFreeAnswer, scrapeOptionsFor, warningsOf, withStealth } from '../../app/scrape.js';
import { publicBase } from '../../app/stores.js';
import { withBrowserSession } from '../../app/browser-sessions.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { ScrapeBody } from '../../contract/schemas.js';
import { formatsAndSchema } from '../../contract/validation.js';
import { checkPageOptions } from '../../contract/page-options.js';
import { docs } from '../openapi-responses.js';
import { bodyRoute } from './body-route.js';
import { withinBudget } from '../budget.js';

export function scrapeRoutes(app: FastifyInstance, ctx: ServerContext): void {
  bodyRoute(
    app,
    '/scrape',
    ScrapeBody,
    'Scrape one URL to markdown, html, links and schema JSON',
    docs.scrape,
    async (body, request, reply) => {
      const { schema } = formatsAndSchema(body.formats, body.schema, { prompt: body.prompt, hasLlm: !!ctx.engine.llm });
      checkPageOptions(body);
      checkProxyTier(ctx, body.proxy);
      const who = { accountId: request.auth!.accountId, base: publicBase(ctx, request) };
      // The stealth proxy tier's surcharge (issue 42) is taken only if the ladder reaches it.
      const { value: result, credits } = await withStealth(
        ctx,
        who.accountId,
        async (stealthGate) => {
          const value = await withCredit(
            ctx,
            request,
            reply,
            withinBudget(body.timeout_ms ?? 30_000, (signal, engine) => {
              const options = { ...scrapeOptionsFor(ctx, { ...who, signal }, { ...body, schema }), stealthGate };
              return body.session
                ? withBrowserSession(
                    ctx,
                    who.accountId,
                    body.session,
                    body.url,
                    (session) => scrape(engine, { ...options, session }),
                    signal,
                  )
                : scrape(engine, options);
            }),
            // An answer with nothing at all in it (a page without text, after every fallback) is free.
            isFreeAnswer,
          );
          return { value, credits: request.creditsCharged };
        },
        (r) => r.metadata.proxy_used,
      );
      request.creditsCharged = credits;
      const { url, metadata, sources, warnings: _given, ...content } = result;
      const warnings = warningsOf(result);
      return {
        status: 'ok',
        url,
        ...content,
        ...(sources && Object.keys(sources).length ? { sources } : {}),
        // What this answer cost (issue 42: 5 through the stealth tier, 1 else, 0 when free).
        metadata: { ...metadata, credits_used: credits },
        ...(warnings ? { warnings } : {}),
      };
    },
  );
}
