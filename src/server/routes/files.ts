/**
 * GET /v1/files/{id}.{png|jpeg}: screenshots (contract section 9). No key: the unguessable id is
 * the capability, so a screenshot URL can be shown in a page or handed to another tool; anyone
 * holding it may read the file until it expires (TRAWL_FILE_RETENTION_HOURS). The bytes are
 * streamed from the file store (read 64 KiB at a time by the thread pool, as fast as the client
 * takes them): serving a file, however large and however many at once, delays no other request.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../errors.js';
import { FILE_ID, FILE_TYPES, openFile } from '../../store/index.js';
import type { ServerContext } from '../context.js';

export function fileRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // Files being sent when the server closes end their connections as they finish: Node closes
  // the connections idle at that moment, and one that turns idle after stays open (and the close
  // waits) for the whole keep-alive timeout.
  const sending = new Map<ServerResponse, Socket>();
  app.addHook('preClose', async () => {
    // (The socket as the response had it: Node lets go of it before 'finish' listeners added now run.)
    for (const [res, socket] of sending) res.once('finish', () => socket.destroySoon());
  });
  app.get<{ Params: { name: string } }>('/v1/files/:name', { schema: { hide: true } }, async (request, reply) => {
    const m = /^([^.]+)\.(png|jpeg)$/.exec(request.params.name);
    const gone = () =>
      notFound(
        `no file ${request.params.name.slice(0, 60)}: it never existed, it expired (screenshots are kept ${ctx.config.fileRetentionHours} hours), or its account's files passed their bound and it was among the oldest`,
      );
    if (!m || !FILE_ID.test(m[1])) throw gone();
    const now = new Date();
    const file = await openFile(ctx.store, m[1], now);
    if (!file) throw gone();
    if (file.row.content_type !== FILE_TYPES[m[2] as keyof typeof FILE_TYPES]) {
      file.stream?.destroy();
      throw gone();
    }
    const maxAge = Math.max(0, Math.floor((Date.parse(file.row.expires_at) - now.getTime()) / 1000));
    reply
      .header('content-type', file.row.content_type)
      .header('content-length', file.size)
      .header('cache-control', `private, max-age=${maxAge}, immutable`)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      // The URL is the key: whoever holds it may read the file, from any origin.
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('access-control-allow-origin', '*');
    if (request.method === 'HEAD') {
      // Fastify's HEAD would read the whole stream to discard it; an empty one keeps the length said above.
      file.stream?.destroy();
      return reply.send(Readable.from([]));
    }
    // A reader that takes no bytes for TRAWL_REQUEST_TIMEOUT_MS is cut off: it would hold its file open, and a shutdown, for ever.
    reply.raw.setTimeout(ctx.config.requestTimeoutMs, () => reply.raw.destroy());
    const res = reply.raw;
    if (res.socket) sending.set(res, res.socket);
    res.once('close', () => sending.delete(res));
    return reply.send(file.stream ?? file.body);
  });
}
