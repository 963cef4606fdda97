/**
 * A JSON request body from its text: a nesting-depth check (a body 20,000 levels deep would
 * otherwise overflow the stack in validation and answer 500), then JSON.parse. Used for small
 * bodies on the event loop and for large ones in a body worker (body-pool.ts), so both answer
 * alike.
 */
import { invalidRequest, TrawlError } from '../errors.js';
import { bodyReaders, type ReaderName } from './body-readers.js';
import { MAX_JSON_DEPTH, scanJson } from './validation.js';

/**
 * Values a body over BODY_LIMIT may hold: a batch's 10,000 URLs and its options need far fewer,
 * while 80 MiB of `[0,0,0…` would make JSON.parse build 40 million of them (gigabytes).
 */
export const LARGE_BODY_VALUES = 100_000;

/**
 * The parsed body; undefined for an empty one (only whitespace), which is no body. `maxValues`
 * bounds what JSON.parse may build (LARGE_BODY_VALUES for a large body).
 */
export function parseJsonBody(text: string, maxValues = Infinity): unknown {
  // curl -H and SDKs send DELETEs so: a body-less route answers as without it, a route that
  // needs one says the body was empty (parseBody).
  if (!text.trim()) return undefined;
  const shape = scanJson(text);
  if (shape.tooDeepAt !== undefined)
    throw invalidRequest(
      `body: nested more than ${MAX_JSON_DEPTH} levels deep (at character ${shape.tooDeepAt}); send a flatter body`,
    );
  if (shape.values > maxValues)
    throw new TrawlError(
      'payload_too_large',
      `body: a body over 1 MiB may hold at most ${maxValues.toLocaleString('en-US')} values (this one has about ${shape.values.toLocaleString('en-US')}); send fewer`,
    );
  try {
    // A byte-order mark is not JSON, but clients send it (as Fastify's parser allowed).
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    // The parser's own message quotes the body: not echoed back.
    throw invalidRequest('body: is not valid JSON (parse error)');
  }
}

/** A large body from its bytes, through its route's reader: what a body worker runs (body-pool.ts). */
export function readLargeBody(bytes: Uint8Array, reader?: ReaderName): unknown {
  // Invalid UTF-8 becomes U+FFFD, as the decoding of a small body does.
  const body = parseJsonBody(new TextDecoder().decode(bytes), LARGE_BODY_VALUES);
  return reader ? bodyReaders[reader](body) : body;
}
