/**
 * OpenAPI from the same Zod objects that validate requests. Fastify's own validation is
 * switched off (routes parse with Zod to word the errors); the JSON Schema is attached for
 * documentation only.
 */
import { z } from 'zod';
import type { RouteShorthandOptions } from 'fastify';

export function openapiRoute(body: z.ZodType, summary: string): RouteShorthandOptions {
  const json = z.toJSONSchema(body, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return {
    schema: {
      summary,
      body: json,
      security: [{ bearer: [] }],
    },
  };
}
