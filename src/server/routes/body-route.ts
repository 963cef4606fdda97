/**
 * A /v1 POST route as every one is declared: documented from its Zod body (server/openapi.ts) and
 * handed that body parsed (contract/validation.ts: a worded 400 for a body that does not fit).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { parseBody } from '../../contract/validation.js';
import { openapiRoute, type OperationDoc } from '../openapi.js';

export function bodyRoute<S extends z.ZodType>(
  app: FastifyInstance,
  path: string,
  schema: S,
  summary: string,
  doc: OperationDoc,
  handle: (body: z.output<S>, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): void {
  app.post(path, openapiRoute(schema, summary, doc), async (request, reply) =>
    handle(parseBody(schema, request.body), request, reply),
  );
}
