/** A job as /v1 answers it (POST /v1/crawl with `async`, /v1/batch/scrape, /v1/jobs). */
import { progressOf } from '../jobs/events.js';
import type { Job } from '../store/index.js';

export function presentJob(j: Job) {
  return {
    job_id: j.id,
    kind: j.kind,
    state: j.state,
    progress: progressOf(j),
    // A crawl says whether its limit left URLs it found unfetched, and how many (counted once each).
    ...(j.kind === 'crawl' ? { truncated: Number(j.truncated) === 1, not_fetched: Number(j.not_fetched) } : {}),
    created_at: j.created_at,
    finished_at: j.finished_at,
    // Why a failed job failed (its pages say it page by page).
    ...(j.error ? { error: j.error } : {}),
  };
}
