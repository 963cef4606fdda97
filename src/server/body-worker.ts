/**
 * A body worker's thread (body-pool.ts): decodes a large request body, parses it under the same
 * checks as a small one (json-body.ts) and runs its route's reader (body-readers.ts). What comes
 * back is the route's value, or the contract error it raised: never the raw parse of a body that
 * failed, which could be millions of values to copy back onto the event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isTrawlError } from '../errors.js';
import type { ReaderName } from './body-readers.js';
import { readLargeBody } from './json-body.js';

export interface BodyJob {
  id: number;
  bytes: Uint8Array;
  reader?: ReaderName;
}

export type BodyAnswer =
  | { id: number; value: unknown }
  | { id: number; error: { code: string; detail: string; fields: Record<string, unknown> } }
  | { id: number; bug: string };

const port = parentPort;
// Only as a body worker (the pool says so): imported anywhere else, this module does nothing.
if (port && (workerData as { bodyWorker?: boolean } | undefined)?.bodyWorker) {
  port.on('message', (job: BodyJob) => {
    let answer: BodyAnswer;
    try {
      answer = { id: job.id, value: readLargeBody(job.bytes, job.reader) };
    } catch (e) {
      answer = isTrawlError(e)
        ? { id: job.id, error: { code: e.code, detail: e.detail, fields: e.fields } }
        : { id: job.id, bug: String((e as Error)?.stack ?? e) };
    }
    try {
      port.postMessage(answer);
    } catch (e) {
      // A value that cannot be cloned is a bug of its reader, said as such.
      port.postMessage({ id: job.id, bug: String((e as Error)?.stack ?? e) } satisfies BodyAnswer);
    }
  });
  // Loaded: the pool may send bodies (a worker that fails before this is not used again).
  port.postMessage({ ready: true });
}
