/**
 * One exchange over undici's dispatcher and the body it brings: read into chunks within the byte
 * budget (pausing for a large page's slot), then decoded off the event loop.
 */
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { fetchFailed } from '../../errors.js';
import type { Cancel } from './http-cancel.js';
import { isRedirect } from './http-urls.js';
import type { PageLease } from './large-pages.js';

const tooLarge = (url: string, maxBytes: number) =>
  fetchFailed(`${url} is larger than the ${Math.round(maxBytes / 1024)} KiB limit`);

export interface Exchanged {
  status: number;
  headers: Record<string, string>;
  /** The body as sent (still encoded); a redirect's is not kept. */
  body: Buffer;
}

/**
 * One request/response over undici's dispatcher, read straight into a list of chunks (no
 * body stream, no async iteration): a crawl's main thread spends its time here. The body is
 * cut off as soon as it passes `maxBytes` (before decoding too: a compressed body is never
 * larger than what it decodes to, short of a broken encoder).
 */
export function exchange(
  dispatcher: Dispatcher,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  maxBytes: number,
  cancel: Cancel,
  lease?: PageLease,
  signal?: AbortSignal,
): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    let resume: (() => void) | undefined;
    let status = 0;
    let responseHeaders: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let size = 0;
    let keep = true;
    let abort: ((reason: Error) => void) | undefined;
    // Until undici hands its abort (onConnect: the connection is up), cancelling ends the wait
    // here: a proxy that never opens its tunnel must not hold the request past its budget.
    cancel.bind(reject);
    dispatcher.dispatch({ origin: url.origin, path: url.pathname + url.search, method, headers, body }, {
      onConnect(a: (reason: Error) => void) {
        abort = a;
        cancel.bind(a);
      },
      onHeaders(statusCode: number, raw: Buffer[], resumeReading: () => void) {
        resume = resumeReading;
        status = statusCode;
        responseHeaders = headersOf(raw);
        // A redirect's body is drained, not kept (the same test as the caller's).
        keep = !isRedirect(statusCode, responseHeaders);
        return true;
      },
      onData(chunk: Buffer) {
        if (!keep) return true;
        size += chunk.length;
        if (size > maxBytes) {
          abort?.(tooLarge(url.href, maxBytes));
          return false;
        }
        chunks.push(chunk);
        // A large page waits for a slot before it reads on (the request's own timer still runs).
        const wait = lease?.grow(size, signal);
        if (!wait) return true;
        wait.then(
          () => resume?.(),
          (e: Error) => abort?.(e),
        );
        return false;
      },
      onComplete() {
        cancel.bind(undefined);
        resolve({
          status,
          headers: responseHeaders,
          body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size),
        });
      },
      onError(err: Error) {
        cancel.bind(undefined);
        reject(err);
      },
    } as unknown as Dispatcher.DispatchHandler);
  });
}

/** Raw header pairs → lower-case names; repeated headers joined with ", " (as a fetch client does). */
function headersOf(raw: Buffer[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toString('latin1').toLowerCase();
    const value = raw[i + 1].toString('latin1');
    out[name] = out[name] === undefined ? value : `${out[name]}, ${value}`;
  }
  return out;
}

/** Decoders by Content-Encoding (a Map: a server sending "__proto__" must find nothing). */
const decompress = new Map([
  ['gzip', promisify(gunzip)],
  ['x-gzip', promisify(gunzip)],
  ['deflate', promisify(inflate)],
  ['br', promisify(brotliDecompress)],
]);

/** The body without its Content-Encoding, decoded off the event loop, no larger than `maxBytes`. */
export async function decodeContent(
  body: Buffer,
  encoding: string | undefined,
  maxBytes: number,
  url: string,
): Promise<Buffer> {
  const enc = (encoding ?? '').trim().toLowerCase();
  const decode = decompress.get(enc);
  if (!decode) return body;
  try {
    return await decode(body, { maxOutputLength: maxBytes });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(url, maxBytes);
    throw fetchFailed(`${url} sent a body that is not valid ${enc}`, e);
  }
}
