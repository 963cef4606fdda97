/**
 * Firecrawl's `webhook` option on crawls and batch scrapes: a URL, or `{url, headers, metadata,
 * events}` (`events` among started, page, completed, failed; all by default), checked here (400
 * naming the part). The events themselves are app/firecrawl-events.ts.
 */
import { invalidRequest } from '../../errors.js';
import type { Field } from './scrape-options.js';
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

/** The option as given, checked (400 naming the part); the URL's reachability is checked by app/jobs.ts's `openJob`. */
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

/** What a /firecrawl job keeps beside Trawl's options: the Firecrawl fields it answers with. */
export interface FirecrawlJobTag {
  firecrawl?: { fields?: Field[]; webhook?: FirecrawlWebhook };
}
