import type { FastifyInstance } from 'fastify';
import { extract } from '../../engine/index.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { openapiRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';
import { ExtractBody } from '../../contract/schemas.js';
import { parseBody, schemaOrPrompt } from '../../contract/validation.js';
import { checkPageOptions, checkPreparingActions } from '../../contract/page-options.js';
import { extractOptionsFor } from '../../app/extract.js';
import { withinBudget } from '../budget.js';

export function extractRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post(
    '/extract',
    openapiRoute(ExtractBody, 'Schema-guided JSON from 1–20 URLs, merged', docs.extract),
    async (request, reply) => {
      const body = parseBody(ExtractBody, request.body);
      const schema = schemaOrPrompt(body.schema, body.prompt, !!ctx.engine.llm);
      checkPageOptions(body, 60_000);
      checkPreparingActions(body.actions, 'extract');
      const r = await withCredit(
        ctx,
        request,
        reply,
        withinBudget(body.timeout_ms ?? 60_000, (signal, engine) =>
          extract(engine, extractOptionsFor(ctx, { ...body, schema }, signal)),
        ),
      );
      return { status: 'ok', data: r.data, results: r.results };
    },
  );
}
