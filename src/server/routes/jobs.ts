import type { FastifyInstance } from 'fastify';
import { TrawlError } from '../../errors.js';
import { cancelJob, findJob, listJobs, pagesWithin, trawlHook } from '../../app/jobs.js';
import { batchOptions, startBatch } from '../../app/batch.js';
import { publicBase } from '../../app/stores.js';
import type { ServerContext } from '../context.js';
import { presentJob } from '../present-job.js';
import { docRoute, openapiRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';
import { decodeCursor, encodeCursor, limitOf, newestFirst } from '../paging.js';
import { BatchScrapeBody } from '../../contract/schemas.js';
import { readBody } from '../body-readers.js';
import { batchBody } from '../body-limits.js';

type IdParams = { Params: { id: string } };

const ENDED = new Set(['completed', 'failed', 'cancelled']);
/** Page text in one answer at most (one page always): the rest comes with next_cursor. */
const PAGE_BYTES = 10 * 1024 * 1024;

export function jobRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const find = async (accountId: string, id: string) => {
    const j = await findJob(ctx, accountId, id);
    if (!j) throw new TrawlError('not_found', `job ${id.slice(0, 40)} does not exist`);
    return j;
  };

  app.post(
    '/batch/scrape',
    {
      ...openapiRoute(
        BatchScrapeBody,
        'Scrape up to 10,000 URLs as a job (202); read its pages from GET /v1/jobs/{id}',
        docs.batchScrape,
      ),
      ...batchBody('batch_scrape'),
    },
    async (request, reply) => {
      // Checked whole, URLs de-duplicated (body-readers.ts).
      const body = readBody(request.body, 'batch_scrape');
      const hook = trawlHook(body);
      const { job, credits } = await startBatch(
        ctx,
        request.auth!.accountId,
        batchOptions(body, publicBase(ctx, request)),
        body.urls,
        hook,
      );
      request.creditsCharged = credits;
      reply.code(202);
      return { status: 'ok', job: presentJob(job) };
    },
  );

  app.get<IdParams>(
    '/jobs/:id',
    docRoute("A job's progress and its pages in completion order (?cursor=&limit= ≤ 100)", docs.getJob),
    async (request) => {
      const j = await find(request.auth!.accountId, request.params.id);
      const limit = limitOf(request, 100, 100);
      const cursor = decodeCursor((request.query as Record<string, unknown>).cursor, 1);
      const after = cursor ? Number(cursor[0]) : 0;
      if (!Number.isInteger(after) || after < 0)
        throw new TrawlError(
          'invalid_request',
          'cursor: is not a cursor this API returned; use next_cursor from the previous page',
        );
      const { rows, cut } = await pagesWithin(ctx, j, after, limit, PAGE_BYTES);
      const last = rows.at(-1)?.n ?? after;
      // More may come while the job runs (poll with next_cursor); once it ended, null after the last page.
      const more = cut || rows.length === limit || !ENDED.has(j.state) || Number(last) < Number(j.written);
      return {
        status: 'ok',
        job: presentJob(j),
        pages: rows.map((r) => JSON.parse(r.page)),
        next_cursor: more ? encodeCursor([String(last)]) : null,
      };
    },
  );

  app.get(
    '/jobs',
    docRoute("The account's jobs, newest first (limit ≤ 100, cursor)", docs.listJobs),
    async (request) => {
      const { page, next_cursor } = await newestFirst(request, (limit, after) =>
        listJobs(ctx, request.auth!.accountId, limit, after),
      );
      return { status: 'ok', jobs: page.map(presentJob), next_cursor };
    },
  );

  app.delete<IdParams>(
    '/jobs/:id',
    docRoute('Cancel a job: no new fetches; pages done are kept', docs.cancelJob),
    async (request) => {
      const j = await find(request.auth!.accountId, request.params.id);
      return { status: 'ok', job: presentJob(await cancelJob(ctx, j)) };
    },
  );
}
