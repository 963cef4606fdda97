/**
 * The readers of the routes that take large bodies (the batch routes): each turns a parsed body
 * into what its route works with, or throws the 400 naming the field. They are pure functions of
 * the body, named here so a body worker can run them (body-pool.ts): a large body is parsed and
 * validated off the event loop, and its route gets the result; a small one is read in the route.
 */
import { readFirecrawlBatch } from '../contract/firecrawl/batch-body.js';
import { readBatchScrape } from '../contract/batch-scrape.js';

export const bodyReaders = {
  batch_scrape: readBatchScrape,
  firecrawl_batch_v1: (body: unknown) => readFirecrawlBatch(body, 'v1'),
  firecrawl_batch_v2: (body: unknown) => readFirecrawlBatch(body, 'v2'),
} satisfies Record<string, (body: unknown) => unknown>;

export type ReaderName = keyof typeof bodyReaders;
type Read<N extends ReaderName> = ReturnType<(typeof bodyReaders)[N]>;

/** A body a worker has already read with its route's reader (what the JSON parser hands on). */
export class ReadBody {
  constructor(
    readonly reader: ReaderName,
    readonly value: unknown,
  ) {}
}

/** The route's body as its reader makes it: from the worker when it read it, read here otherwise. */
export function readBody<N extends ReaderName>(body: unknown, reader: N): Read<N> {
  if (body instanceof ReadBody && body.reader === reader) return body.value as Read<N>;
  return bodyReaders[reader](body) as Read<N>;
}
