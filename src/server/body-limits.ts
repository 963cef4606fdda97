/**
 * How large a request body may be: 1 MiB (the contract's), except on the batch routes, whose
 * 10,000 URLs (the contract's bound) of up to MAX_URL_CHARS each must fit, with the options
 * beside them. A body over its route's limit is 413 payload_too_large naming the limit.
 */
import type { FastifyRequest } from 'fastify';
import { BATCH_BODY_LIMIT, BODY_LIMIT, MAX_BATCH_URLS, MAX_URL_CHARS, MiB } from '../contract/limits.js';
import type { ReaderName } from './body-readers.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What a body over this route's limit says after the limit (how to send less). */
    bodyTooLarge?: string;
    /** How the route reads its body (body-readers.ts): a body over BODY_LIMIT is read in a worker. */
    bodyReader?: ReaderName;
  }
}

/**
 * A batch route's options: its larger limit, what a body over it says, and its reader (a body
 * over BODY_LIMIT is parsed and validated off the event loop, after the credit check: large-bodies.ts).
 */
export const batchBody = (reader: ReaderName) =>
  ({
    bodyLimit: BATCH_BODY_LIMIT,
    config: {
      bodyTooLarge: `at most ${MAX_BATCH_URLS.toLocaleString('en-US')} URLs of up to ${MAX_URL_CHARS.toLocaleString('en-US')} characters plus the options; split the URLs over several batches`,
      bodyReader: reader,
    },
  }) as const;

/** The detail of a 413: the request's route's limit, and the route's advice. */
export function bodyTooLargeDetail(request?: FastifyRequest): string {
  const limit = request?.routeOptions?.bodyLimit ?? BODY_LIMIT;
  const size = limit % MiB === 0 ? `${limit / MiB} MiB` : `${(limit / MiB).toFixed(1)} MiB`;
  const advice = request?.routeOptions?.config?.bodyTooLarge;
  return `body: the request body is larger than ${size}${advice ? ` (${advice})` : ''}`;
}
