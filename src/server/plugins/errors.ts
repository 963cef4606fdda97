/**
 * The one place where failures become HTTP bodies. TrawlErrors carry their contract code;
 * Fastify's own parser/limit errors are mapped to the contract's; anything else is a bug:
 * logged with the request id, answered 500 internal_error with no stack trace.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { TrawlError, isTrawlError } from '../../errors.js';
import type { Redactor } from '../../redact.js';
import { EMPTY_BODY } from '../../contract/validation.js';
import { bodyTooLargeDetail } from '../body-limits.js';

function fromFastify(err: FastifyError, request?: FastifyRequest): TrawlError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new TrawlError(
        'unsupported_media_type',
        'body: send the request body as JSON with Content-Type: application/json',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new TrawlError('payload_too_large', bodyTooLargeDetail(request));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new TrawlError('invalid_request', EMPTY_BODY);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new TrawlError(
        'invalid_request',
        `body: is not valid JSON (${err.message.replace(/^Body is not valid JSON but content-type is set to 'application\/json'$/, 'parse error')})`,
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new TrawlError('invalid_request', 'body: Content-Length does not match the body');
  }
  if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
    return new TrawlError('invalid_request', `body: is not valid JSON (${err.message})`);
  }
  if (err.statusCode === 413) return new TrawlError('payload_too_large', bodyTooLargeDetail(request));
  if (err.statusCode === 415)
    return new TrawlError(
      'unsupported_media_type',
      'body: send the request body as JSON with Content-Type: application/json',
    );
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500)
    return new TrawlError('invalid_request', err.message);
  return undefined;
}

/** The contract's error a thrown value stands for (undefined: a bug). Shared with /firecrawl, which answers it in Firecrawl's shape. */
export function knownError(error: unknown, request?: FastifyRequest): TrawlError | undefined {
  const err = error as FastifyError;
  return isTrawlError(err) ? err : isTrawlError(err?.cause) ? err.cause : fromFastify(err, request);
}

export function registerErrorHandling(app: FastifyInstance, redact: Redactor = (s) => s): void {
  // Every error body leaves through here: no configured secret goes out, in any encoding
  // (redact.ts). Successful answers carry third-party pages and are left as they are: redacting
  // them would let a page list guesses and learn which one is a secret. Errors quoted inside
  // them are redacted where they are made or stored (meta-ads, runner, deliveries).
  app.addHook('onSend', async (_request, reply, payload) =>
    typeof payload === 'string' && reply.statusCode >= 400 ? redact(payload) : payload,
  );
  app.setErrorHandler((error, request, reply) => {
    const known = knownError(error, request);
    if (!known || known.code === 'internal_error') {
      request.log.error({ err: error, requestId: request.id }, 'internal error');
      return reply.code(500).send({ error: 'internal_error' });
    }
    if (known.code === 'rate_limited') reply.header('retry-after', String(known.fields.retry_after));
    // The contract's 401 body is exactly {"error":"unauthorized"}: the cause goes in the header
    // a Bearer client reads it from (RFC 6750), as a quoted string of printable ASCII.
    if (known.code === 'unauthorized')
      reply.header(
        'www-authenticate',
        // (No credentials at all is no error code, RFC 6750 3.1: only the description.)
        `Bearer realm="trawl"${known.detail ? `${/: missing;/.test(known.detail) ? '' : ', error="invalid_token"'}, error_description="${headerText(known.detail)}"` : ''}`,
      );
    return reply.code(known.status).send(known.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({
      error: 'not_found',
      detail: `${request.method} ${request.url.split('?')[0]} is not an endpoint of this API`,
    });
  });
}

/** Text for a quoted header parameter: printable ASCII, no quote or backslash. */
const headerText = (s: string) =>
  s
    .replace(/…/g, '...')
    .replace(/["\\]/g, "'")
    .replace(/[^\x20-\x7e]/g, '?');
