/** What the job repos share: the dialect test, the insert batch, and the events a change makes. */
import { PostgresAdapter } from 'kysely';
import type { Job } from '../../tables.js';
import type { Db } from '../accounts.js';
import type { NewJobEvent } from '../job-events.js';

/** PostgreSQL: row locks (FOR UPDATE, SKIP LOCKED) and advisory locks; SQLite serialises writers itself. */
export const postgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;
/** Rows written per INSERT. */
export const ITEM_BATCH = 1000;

/**
 * The events a change to a job makes (job.page for a page written, job.completed once it ended),
 * built by the caller (../../jobs/events.ts) from the job as the change left it; the store
 * writes them in the change's transaction.
 */
export type JobEventBuilder = (job: Job, page: { n: number; page: unknown } | null) => NewJobEvent[];
