/**
 * A job's life: made (its row, its first items and events in one transaction), released (a
 * synchronous crawl's answer charged), cancelled, its pages dropped, and pruned once ended.
 */
import { sql } from 'kysely';
import type { Db } from '../accounts.js';
import { insertEvents, type NewJobEvent } from '../job-events.js';
import { ITEM_BATCH, type JobEventBuilder } from './common.js';

export async function createJob(
  db: Db,
  job: {
    id: string;
    accountId: string;
    kind: 'crawl' | 'batch';
    options: unknown;
    urls: string[];
    maxItems: number;
    at: string;
    webhook?: string;
    webhookEvents?: string[];
    /** A synchronous crawl: its pages are not readable from the jobs API until `releaseJob`. */
    held?: boolean;
  },
  /** Events of the job's start (a Firecrawl webhook's `started`), written with it. */
  events: NewJobEvent[] = [],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('jobs')
      .values({
        id: job.id,
        account_id: job.accountId,
        kind: job.kind,
        state: 'queued',
        options: JSON.stringify(job.options),
        total: job.urls.length,
        max_items: job.maxItems,
        seq_next: job.urls.length,
        error: null,
        created_at: job.at,
        started_at: null,
        finished_at: null,
        webhook: job.webhook ?? null,
        webhook_events: job.webhookEvents ? JSON.stringify(job.webhookEvents) : null,
        held: job.held ? 1 : 0,
      })
      .execute();
    for (let i = 0; i < job.urls.length; i += ITEM_BATCH) {
      // SQLite writes on this thread: between batches other requests are served (a 10,000-URL
      // batch would hold the event loop ~100 ms at once; its queries wait for the transaction).
      if (i) await new Promise((r) => setImmediate(r));
      await trx
        .insertInto('job_items')
        .values(
          job.urls
            .slice(i, i + ITEM_BATCH)
            .map((url, k) => ({ job_id: job.id, seq: i + k, url, state: 'queued' as const, lease_until: null })),
        )
        .execute();
    }
    await insertEvents(trx, { id: job.id, account_id: job.accountId }, events, job.at);
  });
}

/** A synchronous crawl's answer was charged: its pages become readable from the jobs API. */
export async function releaseJob(db: Db, id: string): Promise<void> {
  await db.updateTable('jobs').set({ held: 0 }).where('id', '=', id).execute();
}

/** Cancels a job still queued or running: its queued items are dropped (pages done are kept). False when it had ended. */
export async function cancelJob(
  db: Db,
  accountId: string,
  id: string,
  at: string,
  events?: JobEventBuilder,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const job = await trx
      .updateTable('jobs')
      .set({ state: 'cancelled', finished_at: at })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('state', 'in', ['queued', 'running'])
      .returningAll()
      .executeTakeFirst();
    if (!job) return false;
    // Items in flight too: their pages are not written (the job no longer runs).
    await stopItems(trx, id);
    if (events) await insertEvents(trx, job, events(job, null), at);
    return true;
  });
}

/**
 * Drops a job's pages (a synchronous crawl whose caller hung up: not charged, so nothing of it is
 * readable). The job ends cancelled with `error` saying why; its items stop (none is written after).
 */
export async function dropPages(db: Db, id: string, at: string, error: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // (written 0: no page is left to read, so a reader's next_cursor ends; the first reason given stays.)
    await trx
      .updateTable('jobs')
      .set({
        state: 'cancelled',
        finished_at: sql`coalesce(finished_at, ${at})`,
        error: sql`coalesce(error, ${error})`,
        written: 0,
      })
      .where('id', '=', id)
      .execute();
    await stopItems(trx, id);
    await trx.deleteFrom('job_pages').where('job_id', '=', id).execute();
  });
}

/** A cancelled job's items still to do or in flight end cancelled (no page of theirs is written after). */
const stopItems = (trx: Db, id: string) =>
  trx
    .updateTable('job_items')
    .set({ state: 'cancelled', lease_until: null })
    .where('job_id', '=', id)
    .where('state', 'in', ['queued', 'running'])
    .execute();

/**
 * Retention: removes up to `batch` rows (events, pages, then items, then the job itself) of one job that
 * ended before `cut`. Returns the rows removed (0: nothing left to prune). Batched so a
 * 100,000-page job never makes one long statement.
 */
export async function pruneEndedJob(db: Db, cut: string, batch: number): Promise<number> {
  const job = await db
    .selectFrom('jobs')
    .select('id')
    .where('state', 'in', ['completed', 'failed', 'cancelled'])
    .where('finished_at', '<', cut)
    .orderBy('finished_at')
    .limit(1)
    .executeTakeFirst();
  if (!job) return 0;
  const events = await db.selectFrom('job_events').select('id').where('job_id', '=', job.id).limit(batch).execute();
  if (events.length) {
    const r = await db
      .deleteFrom('job_events')
      .where(
        'id',
        'in',
        events.map((e) => e.id),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
  const pages = await db
    .selectFrom('job_pages')
    .select('n')
    .where('job_id', '=', job.id)
    .orderBy('n')
    .limit(batch)
    .execute();
  if (pages.length) {
    const r = await db
      .deleteFrom('job_pages')
      .where('job_id', '=', job.id)
      .where(
        'n',
        'in',
        pages.map((p) => p.n),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
  const items = await db
    .selectFrom('job_items')
    .select('seq')
    .where('job_id', '=', job.id)
    .orderBy('seq')
    .limit(batch)
    .execute();
  if (items.length) {
    const r = await db
      .deleteFrom('job_items')
      .where('job_id', '=', job.id)
      .where(
        'seq',
        'in',
        items.map((i) => i.seq),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
  const r = await db.deleteFrom('jobs').where('id', '=', job.id).executeTakeFirst();
  return Number(r.numDeletedRows);
}
