/**
 * Firecrawl's error shape for the /firecrawl scope: `{"success": false, "error": "<sentence>",
 * "code": "<Trawl's code>"}`, with the HTTP status Trawl answers the same failure with (402 for
 * no credits, 429 with Retry-After, 502 for an unreachable target …). Firecrawl's SDKs show
 * `error` to the caller and keep `code` and `details`, so the sentence is the contract's
 * `detail` and the structured parts ride along.
 */
import type { FastifyInstance } from 'fastify';
import { CODES_WITHOUT_DETAIL, ERROR_CATALOGUE, TrawlError } from '../../errors.js';
import { knownError } from '../plugins/errors.js';

/** The body Firecrawl's clients read for a failure. */
export function firecrawlErrorBody(e: TrawlError): Record<string, unknown> {
  const { retry_after: retryAfter, ...details } = e.fields;
  const error =
    e.code === 'rate_limited'
      ? `Rate limit exceeded: retry after ${String(retryAfter)} s`
      : // (Firecrawl's `error` is a sentence: a 401 names its cause here, as /v1's WWW-Authenticate does.)
        CODES_WITHOUT_DETAIL.has(e.code) && !(e.code === 'unauthorized' && e.detail)
        ? ERROR_CATALOGUE[e.code].message
        : e.detail;
  return {
    success: false,
    error,
    code: e.code,
    ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}),
    ...(Object.keys(details).length ? { details } : {}),
  };
}

/** Every failure in the scope leaves in Firecrawl's shape; bugs are logged and answered 500. */
export function registerFirecrawlErrors(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const known = knownError(error, request);
    if (!known || known.code === 'internal_error') {
      request.log.error({ err: error, requestId: request.id }, 'internal error');
      return reply.code(500).send(firecrawlErrorBody(new TrawlError('internal_error')));
    }
    if (known.code === 'rate_limited') reply.header('retry-after', String(known.fields.retry_after));
    return reply.code(known.status).send(firecrawlErrorBody(known));
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    reply
      .code(404)
      .send(
        firecrawlErrorBody(
          new TrawlError(
            'not_found',
            `${request.method} ${path} is not an endpoint of Trawl's Firecrawl-compatible API (see docs/FIRECRAWL.md)`,
          ),
        ),
      );
  });
}
