/**
 * GET /v1/files/{id}.{png|jpeg}: screenshots (contract section 9). No key: the unguessable id is
 * the capability, so a screenshot URL can be shown in a page or handed to another tool; anyone
 * holding it may read the file until it expires (TRAWL_FILE_RETENTION_HOURS).
 */
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../errors.js';
import { FILE_ID, FILE_TYPES, files } from '../../store/index.js';
import type { ServerContext } from '../context.js';

export function fileRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get<{ Params: { name: string } }>('/v1/files/:name', { schema: { hide: true } }, async (request, reply) => {
    const m = /^([^.]+)\.(png|jpeg)$/.exec(request.params.name);
    const gone = () =>
      notFound(
        `no file ${request.params.name.slice(0, 60)}: it never existed or it expired (screenshots are kept ${ctx.config.fileRetentionHours} hours)`,
      );
    if (!m || !FILE_ID.test(m[1])) throw gone();
    const now = new Date();
    const file = await files.getFile(ctx.store.db, m[1], now);
    if (!file || file.content_type !== FILE_TYPES[m[2] as keyof typeof FILE_TYPES]) throw gone();
    const maxAge = Math.max(0, Math.floor((Date.parse(file.expires_at) - now.getTime()) / 1000));
    reply
      .header('content-type', file.content_type)
      .header('cache-control', `private, max-age=${maxAge}, immutable`)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      // The URL is the key: whoever holds it may read the file, from any origin.
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('access-control-allow-origin', '*');
    return reply.send(file.body);
  });
}
