/**
 * The crawl frontier's writes: items end with their pages (group commit), the links they found
 * are admitted as the next depth's items (the (job, url) index is the seen set; never past the
 * job's max_items), redirects merge into the items of their final URLs, and the job's counts move
 * in the same transaction.
 */
import type { Job, JobState } from '../../tables.js';
import type { Db } from '../accounts.js';
import { insertEvents } from '../job-events.js';
import { ITEM_BATCH, postgres, type JobEventBuilder } from './common.js';

/**
 * Another item of the job has this URL in hand (fetching or done): a redirect to it need not be
 * followed, the page is that item's. A queued or cut one is not: the redirect fetches it for it.
 */
export const itemTaken = async (db: Db, jobId: string, url: string, depth: number): Promise<boolean> => {
  const row = await db
    .selectFrom('job_items')
    .select(['state', 'depth'])
    .where('job_id', '=', jobId)
    .where('url', '=', url)
    .executeTakeFirst();
  // A failed one is not: the redirect tries the page again (a 404 on one hit need not lose it).
  return row !== undefined && (row.state === 'running' || row.state === 'done') && Number(row.depth) <= depth;
};

/** Links a crawled page found, to admit as items of the next depth. */
export interface Discovered {
  urls: string[];
  depth: number;
}

/** Most candidates one page may add (its links after filtering; the rest are not looked at). */
/** Links of one page looked at (a crawl's largest limit: a hub page listing a whole site is followed whole). */
const MAX_CANDIDATES = 100_000;
/** URLs a crawl left out kept as `cut` rows (their count is `not_fetched`): at most this many, or the limit if more. */
const MIN_CUT_KEPT = 1000;

/** One item's end, as a runner hands it to finishItems. */
export interface FinishedItem {
  item: { job_id: string; seq: number; attempts: number };
  /** The page (ok, or with `error`). */
  page: unknown;
  failed: boolean;
  discovered?: Discovered[];
  /** Crawl: the canonical URL a redirect moved the page to (the item's URL otherwise). */
  final?: string;
  /** The job's options from now on (a crawl whose start page moved to another site), for the items it admits. */
  options?: unknown;
}

/**
 * Ends items with their pages, in one transaction however many (a runner hands over what finished
 * while its previous batch was being written: group commit). Per job, its row locked first (jobs
 * in id order, so racing runners cannot deadlock): the items still this claim's are marked done
 * or failed (one whose lease passed and another took, or whose job was cancelled meanwhile,
 * writes nothing — cancel keeps the pages done, not the ones in flight), their pages numbered in
 * completion order, the links they discovered admitted (new ones only: the (job, url) index is
 * the seen set; never past the job's max_items), the counts moved, and the job completed with
 * its last item. Returns, per entry, whether it was written.
 */
export async function finishItems(
  db: Db,
  entries: FinishedItem[],
  at: string,
  events?: JobEventBuilder,
): Promise<boolean[]> {
  const byJob = new Map<string, number[]>();
  entries.forEach((e, i) => byJob.set(e.item.job_id, [...(byJob.get(e.item.job_id) ?? []), i]));
  const jobIds = [...byJob.keys()].sort();
  const found = entries.map((e) => (e.discovered ?? []).flatMap((d) => d.urls.map((url) => ({ url, depth: d.depth }))));
  const candidates = found.map((c) => c.slice(0, MAX_CANDIDATES));
  // Seq numbers for the candidates, each job's in a statement of its own outside the
  // transaction (so the job row is not held through it); numbers of seen URLs are skipped.
  const firstSeq = new Map<number, number>();
  for (const job of jobIds) {
    const want = byJob.get(job)!.reduce((n, i) => n + candidates[i].length, 0);
    if (!want) continue;
    const r = await db
      .updateTable('jobs')
      .set((eb) => ({ seq_next: eb('seq_next', '+', want) }))
      .where('id', '=', job)
      .returning('seq_next')
      .executeTakeFirst();
    if (!r) continue;
    let next = Number(r.seq_next) - want;
    for (const i of byJob.get(job)!) {
      firstSeq.set(i, next);
      next += candidates[i].length;
    }
  }
  const written = entries.map(() => false);
  await db.transaction().execute(async (trx) => {
    for (const jobId of jobIds) {
      let q = trx.selectFrom('jobs').selectAll().where('id', '=', jobId);
      if (postgres(trx)) q = q.forUpdate();
      const job = await q.executeTakeFirst();
      if (!job || job.state !== 'running') continue;
      const mine = await ours(
        trx,
        jobId,
        byJob.get(jobId)!.map((i) => ({ i, ...entries[i] })),
      );
      if (!mine.length) continue;
      let added: number[] = [];
      let cut = mine.some((i) => found[i].length > MAX_CANDIDATES);
      let notFetched = Number(job.not_fetched);
      const rows = mine.flatMap((i) =>
        firstSeq.has(i)
          ? candidates[i].map((c, k) => ({
              job_id: jobId,
              seq: firstSeq.get(i)! + k,
              url: c.url,
              depth: c.depth,
              state: 'queued' as const,
              lease_until: null,
            }))
          : [],
      );
      for (let k = 0; k < rows.length; k += ITEM_BATCH) {
        const ins = await trx
          .insertInto('job_items')
          .values(rows.slice(k, k + ITEM_BATCH))
          .onConflict((oc) => oc.doNothing())
          .returning('seq')
          .execute();
        added.push(...ins.map((x) => Number(x.seq)));
      }
      await lowerQueuedDepths(trx, jobId, rows, new Set(added));
      const failed = mine.filter((i) => entries[i].failed).length;
      let total = Number(job.total);
      // (Admitted first: a redirect's final URL found among this batch's links is seen below.)
      if (added.length) {
        // Past the job's limit the newest candidates are left out (never handed out): kept as
        // `cut` rows, so a URL found again is not counted again, up to a bound; the rest go.
        const room = Math.max(0, Number(job.max_items) - total);
        added = added.sort((a, b) => a - b);
        const over = added.slice(room);
        cut ||= over.length > 0;
        const kept = Math.max(0, Math.min(over.length, Math.max(MIN_CUT_KEPT, Number(job.max_items)) - notFetched));
        notFetched += kept;
        for (let k = 0; k < over.length; k += ITEM_BATCH) {
          const part = over.slice(k, k + ITEM_BATCH);
          const keep = part.slice(0, Math.max(0, kept - k));
          const drop = part.slice(keep.length);
          if (keep.length)
            await trx
              .updateTable('job_items')
              .set({ state: 'cut' })
              .where('job_id', '=', jobId)
              .where('seq', 'in', keep)
              .execute();
          if (drop.length)
            await trx.deleteFrom('job_items').where('job_id', '=', jobId).where('seq', 'in', drop).execute();
        }
        total += added.length - over.length;
      }
      const merged = await mergeRedirects(
        trx,
        jobId,
        mine
          .filter((i) => entries[i].final && !entries[i].failed)
          .map((i) => ({ i, seq: entries[i].item.seq, final: entries[i].final! })),
      );
      total -= merged.left;
      notFetched -= merged.uncut;
      const kept = mine.filter((i) => !merged.dropped.has(i));
      const done = Number(job.done) + kept.length - failed;
      const nFailed = Number(job.failed) + failed;
      const ended = done + nFailed >= total;
      // A job none of whose pages could be read (a crawl whose start page failed, a batch of dead
      // URLs) ends failed, not completed; its pages say why.
      const end = ended
        ? done === 0 && nFailed > 0
          ? { state: 'failed' as JobState, finished_at: at, error: 'every page of the job failed; its pages say why' }
          : { state: 'completed' as JobState, finished_at: at }
        : {};
      const n0 = Number(job.written);
      const now: Job = {
        ...job,
        total,
        done,
        failed: nFailed,
        written: n0 + kept.length,
        ...end,
      };
      const options = mine.map((i) => entries[i].options).find((o) => o !== undefined);
      await trx
        .updateTable('jobs')
        .set({
          total,
          done,
          failed: nFailed,
          written: now.written,
          ...(cut ? { truncated: 1 } : {}),
          ...(notFetched !== Number(job.not_fetched) ? { not_fetched: notFetched } : {}),
          ...end,
          ...(options !== undefined ? { options: JSON.stringify(options) } : {}),
        })
        .where('id', '=', jobId)
        .execute();
      const pages = kept.map((i, k) => ({
        job_id: jobId,
        n: n0 + k + 1,
        seq: entries[i].item.seq,
        page: JSON.stringify(entries[i].page),
        created_at: at,
      }));
      for (let k = 0; k < pages.length; k += 200)
        await trx
          .insertInto('job_pages')
          .values(pages.slice(k, k + 200))
          .execute();
      if (events && job.webhook) {
        const evs = kept.flatMap((i, k) =>
          events({ ...now, state: 'running', finished_at: null }, { n: n0 + k + 1, page: entries[i].page }),
        );
        if (ended) evs.push(...events(now, null));
        await insertEvents(trx, job, evs, at);
      }
      for (const i of mine) written[i] = true;
    }
  });
  return written;
}

/**
 * Links found again at a shallower depth than their queued item's (a deeper page finished first)
 * lower it: the page is fetched at its breadth-first depth, and so follows its links as far as
 * `max_depth` allows. (Items already handed out keep theirs: claims by level see to it that they
 * had their shallowest parent's depth by then.)
 */
async function lowerQueuedDepths(
  trx: Db,
  jobId: string,
  rows: { seq: number; url: string; depth: number }[],
  inserted: Set<number>,
): Promise<void> {
  const byDepth = new Map<number, string[]>();
  for (const r of rows) if (!inserted.has(r.seq)) byDepth.set(r.depth, [...(byDepth.get(r.depth) ?? []), r.url]);
  for (const [depth, urls] of byDepth)
    for (let k = 0; k < urls.length; k += ITEM_BATCH)
      await trx
        .updateTable('job_items')
        .set({ depth })
        .where('job_id', '=', jobId)
        .where('state', '=', 'queued')
        .where('depth', '>', depth)
        .where('url', 'in', urls.slice(k, k + ITEM_BATCH))
        .execute();
}

/**
 * Pages a redirect moved to another URL (a crawl's `/a` → `/b`): the final URL joins the seen set
 * (a row of its own, done: it is never fetched), a queued item of it is done by this page (it
 * leaves the count: `left`), and a page whose final URL another item already has or is
 * fetching is that item's: it is dropped (no page of its own; it leaves the count too). So each
 * URL is fetched and answered once, as in a synchronous crawl. (One whose final URL failed as
 * another item is kept: the failure and this answer both stand.)
 */
async function mergeRedirects(
  trx: Db,
  jobId: string,
  moved: { i: number; seq: number; final: string }[],
): Promise<{ dropped: Set<number>; left: number; uncut: number }> {
  const dropped = new Set<number>();
  let left = 0;
  let uncut = 0;
  for (const { i, seq, final } of moved) {
    const other = await trx
      .selectFrom('job_items')
      .select(['seq', 'state'])
      .where('job_id', '=', jobId)
      .where('url', '=', final)
      .executeTakeFirst();
    if (other?.state === 'cut') {
      // A URL the limit left out was reached by a redirect after all: fetched now, no longer left out.
      await trx
        .updateTable('job_items')
        .set({ state: 'done' })
        .where('job_id', '=', jobId)
        .where('seq', '=', other.seq)
        .execute();
      uncut++;
      continue;
    }
    if (!other) {
      // At the depth of the page that reached it: a redirect from a shallower page later is followed (itemTaken).
      const from = await trx
        .selectFrom('job_items')
        .select('depth')
        .where('job_id', '=', jobId)
        .where('seq', '=', seq)
        .executeTakeFirst();
      const r = await trx
        .updateTable('jobs')
        .set((eb) => ({ seq_next: eb('seq_next', '+', 1) }))
        .where('id', '=', jobId)
        .returning('seq_next')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('job_items')
        .values({
          job_id: jobId,
          seq: Number(r.seq_next) - 1,
          url: final,
          depth: Number(from?.depth ?? 0),
          state: 'done',
          lease_until: null,
        })
        .execute();
      continue;
    }
    if (other.state === 'failed') {
      // The page in hand failed and this redirect reached it: this page is its answer (both stay).
      continue;
    }
    const taken =
      other.state === 'queued' &&
      Number(
        (
          await trx
            .updateTable('job_items')
            .set({ state: 'done' })
            .where('job_id', '=', jobId)
            .where('seq', '=', other.seq)
            .where('state', '=', 'queued')
            .executeTakeFirst()
        ).numUpdatedRows,
      ) > 0;
    if (!taken) dropped.add(i);
    left++;
  }
  return { dropped, left, uncut };
}

/** Marks the entries' items done or failed where they are still this claim's; returns those entries' indexes. */
async function ours(trx: Db, jobId: string, list: (FinishedItem & { i: number })[]): Promise<number[]> {
  const out: number[] = [];
  for (const failed of [false, true]) {
    const part = list.filter((e) => e.failed === failed);
    if (!part.length) continue;
    const rows = await trx
      .updateTable('job_items')
      .set({ state: failed ? 'failed' : 'done', lease_until: null })
      .where('job_id', '=', jobId)
      .where('state', '=', 'running')
      .where((eb) => eb.or(part.map((e) => eb.and([eb('seq', '=', e.item.seq), eb('attempts', '=', e.item.attempts)]))))
      .returning('seq')
      .execute();
    const got = new Set(rows.map((r) => Number(r.seq)));
    out.push(...part.filter((e) => got.has(e.item.seq)).map((e) => e.i));
  }
  return out.sort((a, b) => a - b);
}

/** One item's end (see finishItems). */
export async function finishItem(
  db: Db,
  item: FinishedItem['item'],
  page: unknown,
  failed: boolean,
  at: string,
  discovered: Discovered[] = [],
  events?: JobEventBuilder,
): Promise<boolean> {
  return (await finishItems(db, [{ item, page, failed, discovered }], at, events))[0];
}
