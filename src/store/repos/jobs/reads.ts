/** Reads of jobs and their pages, for the jobs API (a held synchronous crawl's pages are not readable). */
import type { ExpressionBuilder } from 'kysely';
import type { Database, Job, JobState } from '../../tables.js';
import type { Db } from '../accounts.js';

export const getJob = (db: Db, accountId: string, id: string): Promise<Job | undefined> =>
  db.selectFrom('jobs').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();

/** Newest first; `before` is the created_at|id of the previous page's last job. */
export function listJobs(
  db: Db,
  accountId: string,
  limit: number,
  before?: { createdAt: string; id: string },
): Promise<Job[]> {
  let q = db.selectFrom('jobs').selectAll().where('account_id', '=', accountId);
  if (before)
    q = q.where((eb) =>
      eb.or([
        eb('created_at', '<', before.createdAt),
        eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
      ]),
    );
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** A job's state (undefined: gone), for runners deciding whether to fetch its page. */
export const jobState = async (db: Db, id: string): Promise<JobState | undefined> =>
  (await db.selectFrom('jobs').select('state').where('id', '=', id).executeTakeFirst())?.state;

/** Pages of a job that is not held (a synchronous crawl not yet charged has none to read). */
const unheld = (eb: ExpressionBuilder<Database, 'job_pages'>) =>
  eb.not(
    eb.exists(
      eb.selectFrom('jobs').select('jobs.id').whereRef('jobs.id', '=', 'job_pages.job_id').where('jobs.held', '=', 1),
    ),
  );

/** Pages after cursor `n` (exclusive), in completion order. */
export const pagesAfter = (db: Db, jobId: string, after: number, limit: number) =>
  db
    .selectFrom('job_pages')
    .select(['n', 'page'])
    .where('job_id', '=', jobId)
    .where(unheld)
    .where('n', '>', after)
    .orderBy('n')
    .limit(limit)
    .execute();

/**
 * A crawl's pages in breadth-first order (depth, then admission order: a page's links in the order
 * they appear, pages of one depth in the order they were found), after `after`'s (depth, seq).
 */
export const pagesByDepth = (
  db: Db,
  jobId: string,
  after: { depth: number; seq: number } | undefined,
  limit: number,
) => {
  let q = db
    .selectFrom('job_pages')
    .innerJoin('job_items', (j) =>
      j.onRef('job_items.job_id', '=', 'job_pages.job_id').onRef('job_items.seq', '=', 'job_pages.seq'),
    )
    .select(['job_items.depth', 'job_pages.seq', 'job_pages.page', 'job_items.state'])
    .where('job_pages.job_id', '=', jobId);
  if (after)
    q = q.where((eb) =>
      eb.or([
        eb('job_items.depth', '>', after.depth),
        eb.and([eb('job_items.depth', '=', after.depth), eb('job_pages.seq', '>', after.seq)]),
      ]),
    );
  return q.orderBy('job_items.depth').orderBy('job_pages.seq').limit(limit).execute();
};

/** Whether a page follows cursor `n` (its number only: the page is not read). */
export const hasPageAfter = async (db: Db, jobId: string, after: number): Promise<boolean> =>
  !!(await db
    .selectFrom('job_pages')
    .select('n')
    .where('job_id', '=', jobId)
    .where(unheld)
    .where('n', '>', after)
    .limit(1)
    .executeTakeFirst());

/**
 * Failed pages after cursor `n` (their items ended `failed`), in completion order: an errors
 * listing reads these few small rows, not every page's content (a job's pages may be GBs).
 */
export const failedPagesAfter = (db: Db, jobId: string, after: number, limit: number) =>
  db
    .selectFrom('job_pages')
    .innerJoin('job_items', (j) =>
      j.onRef('job_items.job_id', '=', 'job_pages.job_id').onRef('job_items.seq', '=', 'job_pages.seq'),
    )
    .select(['job_pages.n', 'job_pages.page'])
    .where('job_pages.job_id', '=', jobId)
    .where(unheld)
    .where('job_items.state', '=', 'failed')
    .where('job_pages.n', '>', after)
    .orderBy('job_pages.n')
    .limit(limit)
    .execute();

/** Pages read from the store at once when a reader bounds its bytes (a page may be tens of MB). */
const PAGES_PER_READ = 8;

/**
 * Pages after cursor `n`, at most `limit`, stopping before the page that would take the text read
 * past `maxBytes` (one page at least), read a few at a time: one answer never holds a job's whole
 * bulk (100 pages of 3 MB in three formats made a 600 MB body, past what a string can hold).
 * `cut` tells the caller pages were left for the next cursor.
 */
export async function pagesWithin(
  db: Db,
  jobId: string,
  after: number,
  limit: number,
  maxBytes: number,
): Promise<{ rows: { n: number; page: string }[]; cut: boolean }> {
  const rows: { n: number; page: string }[] = [];
  let bytes = 0;
  let from = after;
  while (rows.length < limit) {
    const want = Math.min(PAGES_PER_READ, limit - rows.length);
    const part = await pagesAfter(db, jobId, from, want);
    for (const r of part) {
      if (rows.length && bytes + r.page.length > maxBytes) return { rows, cut: true };
      rows.push({ n: Number(r.n), page: r.page });
      bytes += r.page.length;
    }
    if (part.length < want) break;
    from = Number(part.at(-1)!.n);
  }
  return { rows, cut: false };
}
