/**
 * Firecrawl's `webhook` option on crawls and batch scrapes: a URL, or `{url, headers, metadata,
 * events}` (`events` among started, page, completed, failed; all by default). The events go
 * through Trawl's job outbox (signed, retried, never lost, like every job webhook) in Firecrawl's
 * body: `{"success","type":"crawl.page"|…,"id","webhookId","data":[Document…],"metadata"}` —
 * `webhookId` the event's id (the same on retries), `data` the page's Document for a page event
 * (failed pages are not sent, as the status answer leaves them out). Besides Trawl's signature
 * headers each carries Firecrawl's `X-Firecrawl-Signature: sha256=<hex HMAC of the body>`, keyed
 * with the account's signing secret.
 */
import { fitPage, type EventShape } from '../jobs/events.js';
import { newId, type Job } from '../store/index.js';
import type { NewJobEvent } from '../store/repos/job-events.js';
import { documentOfPage } from '../contract/firecrawl/document.js';
import type { FirecrawlJobTag, FirecrawlWebhook } from '../contract/firecrawl/webhook.js';

type EventName = FirecrawlWebhook['events'][number];

const body = (hook: FirecrawlWebhook, type: EventName, jobId: string, id: string, data: unknown[], error?: string) =>
  JSON.stringify({
    success: type !== 'failed',
    type: `${hook.kind}.${type}`,
    id: jobId,
    webhookId: id,
    data,
    metadata: hook.metadata ?? {},
    ...(error ? { error } : {}),
  });

function event(hook: FirecrawlWebhook, type: EventName, make: (id: string) => string): NewJobEvent {
  const id = newId('evt');
  return { id, event: `${hook.kind}.${type}`, body: make(id), ...(hook.headers ? { headers: hook.headers } : {}) };
}

/** `started`, written with the job. */
export function startedEvents(hook: FirecrawlWebhook, jobId: string): NewJobEvent[] {
  return hook.events.includes('started') ? [event(hook, 'started', (id) => body(hook, 'started', jobId, id, []))] : [];
}

/** The job runner's and cancel's events of a /firecrawl job with a webhook (undefined for any other job). */
export const firecrawlEvents: EventShape = (job: Job, page) => {
  const tag = (JSON.parse(job.options) as FirecrawlJobTag).firecrawl;
  const hook = tag?.webhook;
  if (!hook) return undefined;
  const out: NewJobEvent[] = [];
  const p = page?.page as Record<string, unknown> | undefined;
  if (p && p.error === undefined && hook.events.includes('page')) {
    const doc = documentOfPage(p, tag.fields);
    out.push(event(hook, 'page', (id) => fitPage(doc, (d) => body(hook, 'page', job.id, id, [d]))));
  }
  if (job.state === 'completed' && hook.events.includes('completed'))
    out.push(event(hook, 'completed', (id) => body(hook, 'completed', job.id, id, [])));
  if ((job.state === 'cancelled' || job.state === 'failed') && hook.events.includes('failed')) {
    out.push(
      event(hook, 'failed', (id) =>
        body(
          hook,
          'failed',
          job.id,
          id,
          [],
          job.state === 'cancelled' ? 'the job was cancelled' : (job.error ?? 'the job failed'),
        ),
      ),
    );
  }
  return out;
};
