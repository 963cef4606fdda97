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
import { invalidRequest } from '../../errors.js';
import { fitPage, type EventShape } from '../../jobs/events.js';
import { newId, type Job } from '../../store/index.js';
import type { NewJobEvent } from '../../store/repos/job-events.js';
import type { ServerContext } from '../context.js';
import { jobWebhook } from '../routes/jobs.js';
import { documentOfPage } from './document.js';
import type { FirecrawlJobTag } from './jobs.js';
import { httpUrlAt } from './options.js';

export const FIRECRAWL_EVENTS = ['started', 'page', 'completed', 'failed'] as const;
type EventName = (typeof FIRECRAWL_EVENTS)[number];

export interface FirecrawlWebhook {
  /** `crawl` or `batch_scrape`: the events' prefix. */
  kind: 'crawl' | 'batch_scrape';
  headers?: Record<string, string>;
  metadata?: Record<string, unknown>;
  events: EventName[];
}

const MAX_HEADERS = 20;
const MAX_METADATA_BYTES = 8 * 1024;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Headers the protocol sets or the connection owns: a caller's value would lie or break it. */
const RESERVED =
  /^(host|content-length|content-type|transfer-encoding|connection|keep-alive|upgrade|expect|te|trailer|proxy-.*|user-agent|accept|webhook-.*|x-service-signature|x-firecrawl-signature)$/i;
/** What a header value may hold on the wire (tab, visible ASCII, Latin-1): anything else is refused by the HTTP client on every attempt. */
const VALUE = /^[\t\x20-\x7e\x80-\xff]{0,1024}$/;

/** The option as given, checked (400 naming the part); the URL's reachability is checked by `webhookOf`. */
export function parseWebhook(
  v: unknown,
  kind: FirecrawlWebhook['kind'],
): { url: string; hook: FirecrawlWebhook } | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return { url: httpUrlAt(v, 'webhook'), hook: { kind, events: [...FIRECRAWL_EVENTS] } };
  if (typeof v !== 'object' || Array.isArray(v))
    throw invalidRequest('webhook: must be a URL or an object {url, headers?, metadata?, events?}');
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!['url', 'headers', 'metadata', 'events'].includes(k))
      throw invalidRequest(`webhook.${k}: not an option of a webhook (url, headers, metadata, events)`);
  const url = httpUrlAt(o.url, 'webhook.url');
  const hook: FirecrawlWebhook = { kind, events: [...FIRECRAWL_EVENTS] };
  if (o.headers !== undefined && o.headers !== null) {
    if (typeof o.headers !== 'object' || Array.isArray(o.headers))
      throw invalidRequest('webhook.headers: must be an object of header names to string values');
    const entries = Object.entries(o.headers as Record<string, unknown>);
    if (entries.length > MAX_HEADERS) throw invalidRequest(`webhook.headers: at most ${MAX_HEADERS} headers`);
    for (const [name, value] of entries) {
      if (!TOKEN.test(name)) throw invalidRequest(`webhook.headers: "${name.slice(0, 40)}" is not a header name`);
      if (RESERVED.test(name))
        throw invalidRequest(`webhook.headers.${name}: set by Trawl itself; choose another header`);
      if (typeof value !== 'string' || !VALUE.test(value))
        throw invalidRequest(
          `webhook.headers.${name}: must be a string of at most 1024 characters on one line, of printable ASCII or Latin-1 characters`,
        );
    }
    if (entries.length) hook.headers = Object.fromEntries(entries) as Record<string, string>;
  }
  if (o.metadata !== undefined && o.metadata !== null) {
    if (typeof o.metadata !== 'object' || Array.isArray(o.metadata))
      throw invalidRequest('webhook.metadata: must be an object');
    if (Buffer.byteLength(JSON.stringify(o.metadata)) > MAX_METADATA_BYTES)
      throw invalidRequest(`webhook.metadata: at most ${MAX_METADATA_BYTES} bytes of JSON`);
    hook.metadata = o.metadata as Record<string, unknown>;
  }
  if (o.events !== undefined && o.events !== null) {
    if (
      !Array.isArray(o.events) ||
      !o.events.length ||
      o.events.some((e) => !FIRECRAWL_EVENTS.includes(e as EventName))
    ) {
      throw invalidRequest(`webhook.events: must be a non-empty array of ${FIRECRAWL_EVENTS.join(', ')}`);
    }
    hook.events = [...new Set(o.events as EventName[])];
  }
  return { url, hook };
}

/** The option parsed and its URL checked against the guard (forbidden_target), as for any job webhook. */
export async function webhookOf(
  ctx: ServerContext,
  v: unknown,
  kind: FirecrawlWebhook['kind'],
): Promise<{ url: string; hook: FirecrawlWebhook } | undefined> {
  const parsed = parseWebhook(v, kind);
  if (parsed) await jobWebhook(ctx, { webhook: parsed.url });
  return parsed;
}

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
