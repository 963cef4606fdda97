/**
 * A crawl's or batch scrape's status, errors and cancel in Firecrawl's shapes, read from Trawl's
 * job (app/jobs.ts): `status` (scraping | completed | failed | cancelled), `completed`,
 * `total`, `creditsUsed` (what Trawl charged: one credit per job), `expiresAt` (when retention
 * removes it), the documents in completion order, and `next` — an absolute URL with `skip` —
 * while more pages are already written than one answer carries. Failed pages are not documents:
 * they are listed by the errors endpoint (robots.txt refusals apart, as Firecrawl does).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TrawlError } from '../../errors.js';
import { cancelJob, failedPagesAfter, findJob, hasPageAfter, pagesWithin, type AccountJob } from '../../app/jobs.js';
import type { FirecrawlJobTag } from '../../contract/firecrawl/webhook.js';
import type { Job } from '../../store/index.js';
import type { ServerContext } from '../context.js';
import { documentOfPage } from '../../contract/firecrawl/document.js';
import type { Version } from '../../contract/firecrawl/scrape-options.js';
import { apiBase, HIDDEN } from './shared.js';

type IdParams = { Params: { id: string } };
/** Pages per answer at most, and the answer's size: Firecrawl pages its results by 10 MB. */
const PAGE_LIMIT = 1000;
const ANSWER_BYTES = 10 * 1024 * 1024;
const ERRORS_SCAN = 1000;

const STATUS: Record<Job['state'], string> = {
  queued: 'scraping',
  running: 'scraping',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

export interface JobKind {
  /** Its path under the version (`crawl`, `batch/scrape`). */
  path: string;
}

export const CRAWL: JobKind = { path: 'crawl' };
export const BATCH: JobKind = { path: 'batch/scrape' };

/** The job's URL as Firecrawl answers it when the job starts. */
export const jobUrl = (request: FastifyRequest, version: Version, k: JobKind, id: string) =>
  `${apiBase(request, version)}/${k.path}/${id}`;

const fieldsOf = (j: Job) => (JSON.parse(j.options) as FirecrawlJobTag).firecrawl?.fields;

function expiresAt(ctx: ServerContext, j: Job): string {
  const from = Date.parse(j.finished_at ?? ctx.store.now().toISOString());
  return new Date(from + ctx.config.jobRetentionHours * 3_600_000).toISOString();
}

function queryInt(request: FastifyRequest, name: string, min: number, max: number, fallback: number): number {
  const raw = (request.query as Record<string, unknown>)[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || n < min || n > max)
    throw new TrawlError('invalid_request', `${name}: must be an integer from ${min} to ${max}`);
  return n;
}

/**
 * The documents after page `skip`: up to `limit` pages or the size budget (at least one page,
 * however large), read a few at a time (pagesWithin) so an answer never holds more of a job
 * than it sends. `last` is the cursor of the last page read, `more` whether pages already
 * written follow it.
 */
async function pagesFrom(
  ctx: ServerContext,
  j: AccountJob,
  skip: number,
  limit: number,
): Promise<{ data: Record<string, unknown>[]; last: number; more: boolean }> {
  const fields = fieldsOf(j);
  const { rows, cut } = await pagesWithin(ctx, j, skip, limit, ANSWER_BYTES);
  const data: Record<string, unknown>[] = [];
  for (const r of rows) {
    const page = JSON.parse(r.page) as Record<string, unknown>;
    if (page.error === undefined) data.push(documentOfPage(page, fields));
  }
  const last = rows.length ? rows[rows.length - 1].n : skip;
  const more = cut || (rows.length === limit && (await hasPageAfter(ctx, j, last)));
  return { data, last, more };
}

export function jobRoutes(app: FastifyInstance, ctx: ServerContext, version: Version, k: JobKind): void {
  const base = `/${version}/${k.path}`;
  const find = async (request: FastifyRequest<IdParams>): Promise<AccountJob> => {
    const id = request.params.id;
    const j = await findJob(ctx, request.auth!.accountId, id);
    // Either kind on either path: Firecrawl's v1 SDK waits for a batch on /v1/crawl/{id}.
    if (!j) throw new TrawlError('not_found', `job ${id.slice(0, 40)} does not exist (or belongs to another account)`);
    return j;
  };

  app.get<IdParams>(`${base}/:id`, HIDDEN, async (request) => {
    const j = await find(request);
    const skip = queryInt(request, 'skip', 0, Number.MAX_SAFE_INTEGER, 0);
    const limit = queryInt(request, 'limit', 1, PAGE_LIMIT, PAGE_LIMIT);
    const { data, last, more } = await pagesFrom(ctx, j, skip, limit);
    const body: Record<string, unknown> = {
      success: true,
      status: STATUS[j.state],
      completed: Number(j.done),
      total: Number(j.total),
      creditsUsed: 1,
      expiresAt: expiresAt(ctx, j),
    };
    if (more) {
      const q = new URLSearchParams({ skip: String(last) });
      if ((request.query as Record<string, unknown>).limit !== undefined) q.set('limit', String(limit));
      body.next = `${apiBase(request, version)}/${k.path}/${j.id}?${q}`;
    }
    body.data = data;
    return body;
  });

  const errors = async (request: FastifyRequest<IdParams>) => {
    const j = await find(request);
    const out: { id: string; url: string; code: string; error: string }[] = [];
    const robotsBlocked: string[] = [];
    for (let after = 0; ;) {
      const rows = await failedPagesAfter(ctx, j, after, ERRORS_SCAN);
      for (const r of rows) {
        const p = JSON.parse(r.page) as { url: string; error?: string; detail?: string };
        if (p.error === 'robots_disallowed') robotsBlocked.push(p.url);
        else if (p.error !== undefined)
          out.push({ id: `${j.id}-${r.n}`, url: p.url, code: p.error, error: p.detail ?? p.error });
      }
      if (rows.length < ERRORS_SCAN) break;
      after = Number(rows.at(-1)!.n);
    }
    return { success: true, errors: out, robotsBlocked };
  };
  app.get<IdParams>(`${base}/:id/errors`, HIDDEN, errors);
  // Firecrawl's v1 SDK asks for errors with DELETE (checkCrawlErrors, checkBatchScrapeErrors).
  if (version === 'v1') app.delete<IdParams>(`${base}/:id/errors`, HIDDEN, errors);

  app.delete<IdParams>(`${base}/:id`, HIDDEN, async (request) => {
    const j = await find(request);
    const now = await cancelJob(ctx, j);
    return { success: true, status: STATUS[now.state] };
  });
}
