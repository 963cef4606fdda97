/**
 * A job's webhook events (contract sections 5 and 7), signed and retried like a monitor's:
 * - `job.page` (opt-in with `"webhook_events":["job.page"]`): `{"id","event","job_id","sequence":n,
 *   "page":{…},"at"}` — `sequence` is the page's number in completion order (the cursor's n);
 * - `job.completed` (always, once per job, whatever its end: completed, failed or cancelled):
 *   `{"id","event","job_id","kind","state","progress","sequence","created_at","finished_at","at"}`,
 *   `sequence` one past the last page's.
 * A page too large for one body (256 KiB) is sent without its largest content fields, named in
 * `omitted`; the whole page stays readable from GET /v1/jobs/{id}.
 */
import { newId, type Job } from '../store/index.js';
import type { JobEventBuilder } from '../store/repos/jobs.js';
import type { NewJobEvent } from '../store/repos/job-events.js';
import { MAX_BODY_BYTES } from '../webhooks/index.js';

export const JOB_EVENT_TYPES = ['job.completed', 'job.page'] as const;
const ENDED = new Set(['completed', 'failed', 'cancelled']);
const CONTENT = ['raw_html', 'rawHtml', 'html', 'markdown', 'links', 'json', 'metadata'];

export function progressOf(j: Job) {
  return {
    done: Number(j.done),
    failed: Number(j.failed),
    queued: j.state === 'cancelled' ? 0 : Math.max(0, Number(j.total) - Number(j.done) - Number(j.failed)),
  };
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * A body carrying a page, under MAX_BODY_BYTES: whole when it fits, else without the page's
 * largest content fields, named in `omitted` (`body` builds it from the page as it stands).
 */
export function fitPage(
  page: Record<string, unknown>,
  body: (page: Record<string, unknown>, omitted?: string[]) => string,
): string {
  const p = { ...page };
  let s = body(p);
  const omitted: string[] = [];
  const bySize = CONTENT.filter((f) => f in p).sort(
    (a, b) => bytes(JSON.stringify(p[b])) - bytes(JSON.stringify(p[a])),
  );
  for (const f of bySize) {
    if (bytes(s) < MAX_BODY_BYTES) break;
    delete p[f];
    omitted.push(f);
    s = body(p, omitted);
  }
  return s;
}

/** The page as sent: whole when it fits, else without its largest content fields. */
export function pageEventBody(e: { id: string; jobId: string; n: number; page: unknown; at: string }): string {
  return fitPage(e.page as Record<string, unknown>, (page, omitted) =>
    JSON.stringify({
      id: e.id,
      event: 'job.page',
      job_id: e.jobId,
      sequence: e.n,
      page,
      ...(omitted ? { omitted } : {}),
      at: e.at,
    }),
  );
}

export function completedEventBody(e: { id: string; job: Job; at: string }): string {
  const j = e.job;
  return JSON.stringify({
    id: e.id,
    event: 'job.completed',
    job_id: j.id,
    kind: j.kind,
    state: j.state,
    progress: progressOf(j),
    sequence: Number(j.written) + 1,
    created_at: j.created_at,
    finished_at: j.finished_at,
    at: e.at,
  });
}

/**
 * Another shape of a job's events (the Firecrawl surface's), chosen by the job's options:
 * undefined when the job is not one of its own.
 */
export type EventShape = (job: Job, page: { n: number; page: unknown } | null, at: string) => NewJobEvent[] | undefined;

/** What a change to a job sends: its page (when asked for), and job.completed when it ended. */
export const jobEvents =
  (at: string, shape?: EventShape): JobEventBuilder =>
  (job, page) => {
    if (!job.webhook) return [];
    const other = shape?.(job, page, at);
    if (other) return other;
    const out: NewJobEvent[] = [];
    const wanted = job.webhook_events ? (JSON.parse(job.webhook_events) as string[]) : [];
    if (page && wanted.includes('job.page')) {
      const id = newId('evt');
      out.push({ id, event: 'job.page', body: pageEventBody({ id, jobId: job.id, n: page.n, page: page.page, at }) });
    }
    if (ENDED.has(job.state)) {
      const id = newId('evt');
      out.push({ id, event: 'job.completed', body: completedEventBody({ id, job, at }) });
    }
    return out;
  };
