/**
 * OpenAPI from the same Zod objects that validate requests. Fastify's own validation is
 * switched off (routes parse with Zod to word the errors) and responses are serialised with
 * JSON.stringify whatever their schema says (app.ts): every schema attached here — request
 * bodies, query strings, path parameters, responses — is documentation only and changes nothing
 * a route does. What each operation answers is in ./openapi-responses.ts.
 */
import { z } from 'zod';
import type { RouteShorthandOptions } from 'fastify';

/** The documentation of one operation beyond its summary (openapi-responses.ts). */
export interface OperationDoc {
  operationId: string;
  tags: string[];
  description?: string;
  /** Status code → OpenAPI response object (description, headers, content with schema and examples). */
  response: Record<string, unknown>;
  params?: Record<string, unknown>;
  querystring?: Record<string, unknown>;
  /** Request bodies to show, by name (the first is the default in the interactive reference). */
  bodyExamples?: Record<string, { summary: string; value: unknown }>;
  /** Public operations (health) need no key. */
  public?: boolean;
}

const SECURITY = [{ bearer: [] }];

/** JSON Schema of a Zod object, as a request (`input`) or an answer (`output`) sees it. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

function withDoc(summary: string, doc: OperationDoc, body?: Record<string, unknown>): RouteShorthandOptions {
  return {
    schema: {
      summary,
      operationId: doc.operationId,
      tags: doc.tags,
      ...(doc.description ? { description: doc.description } : {}),
      ...(body ? { body } : {}),
      ...(doc.params ? { params: doc.params } : {}),
      ...(doc.querystring ? { querystring: doc.querystring } : {}),
      response: doc.response,
      security: doc.public ? [] : SECURITY,
    },
  };
}

/** A route that takes a JSON body: the body's schema (with examples) and the operation's answers. */
export function openapiRoute(body: z.ZodType, summary: string, doc: OperationDoc): RouteShorthandOptions {
  const json = jsonSchema(body, 'input');
  // Named examples go to the media type (the plugin moves `x-examples` there as they are).
  if (doc.bodyExamples) json['x-examples'] = doc.bodyExamples;
  return withDoc(summary, doc, json);
}

/** A route without a body (GET, DELETE, actions on a resource). */
export function docRoute(summary: string, doc: OperationDoc): RouteShorthandOptions {
  return withDoc(summary, doc);
}
