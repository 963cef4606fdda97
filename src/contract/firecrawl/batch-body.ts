/**
 * What POST /firecrawl/{v1,v2}/batch/scrape's body says, checked: its options (Firecrawl's names,
 * one 400 naming an option Trawl does not take) and its URLs, sorted into those to scrape (each
 * once) and, with `ignoreInvalidURLs`, those left out. A pure function of the body: a large one is read in a
 * body worker (body-readers.ts), so 10,000 URLs are not checked on the event loop.
 */
import { invalidRequest } from '../../errors.js';
import { MAX_BATCH_URLS } from '../limits.js';
import { httpUrl } from '../validation.js';
import { bodyOf, boolAt, checkOptions, onlyAt, refuse } from './options.js';
import { scrapeOptionTable, type Version } from './scrape-options.js';
import { uniqueUrls } from '../urls.js';

const URL_CHECK = httpUrl();

export interface FirecrawlBatchBody {
  /** The options as sent, `urls` left out. */
  options: Record<string, unknown>;
  /** To scrape, each once, in the order first listed. */
  urls: string[];
  /** Left out with `ignoreInvalidURLs` (listed in the answer's `invalidURLs`). */
  invalid: string[];
  skipInvalid: boolean;
}

export function readFirecrawlBatch(body: unknown, version: Version): FirecrawlBatchBody {
  const o = checkOptions(bodyOf(body), {
    ...scrapeOptionTable('batch', version),
    urls: 'map',
    ignoreInvalidURLs: 'map',
    webhook: 'map',
    appendToId: refuse('a batch cannot grow once started; start another batch'),
    maxConcurrency: refuse(
      "Trawl bounds concurrency per host and per account (TRAWL_ACCOUNT_CONCURRENCY); a job's own cap is not supported",
    ),
    zeroDataRetention: onlyAt([false], 'job results are kept for TRAWL_JOB_RETENTION_HOURS'),
  });
  const skipInvalid = boolAt(o.ignoreInvalidURLs, 'ignoreInvalidURLs') ?? false;
  if (!Array.isArray(o.urls) || !o.urls.length || o.urls.length > MAX_BATCH_URLS)
    throw invalidRequest(`urls: must be an array of 1 to ${MAX_BATCH_URLS} http or https URLs`);
  const urls: string[] = [];
  const invalid: string[] = [];
  o.urls.forEach((u: unknown, i: number) => {
    if (URL_CHECK.safeParse(u).success) urls.push(u as string);
    else if (skipInvalid) invalid.push(String(u));
    else
      throw invalidRequest(
        `urls[${i}]: must be an http or https URL (or send "ignoreInvalidURLs": true to leave such URLs out)`,
      );
  });
  if (!urls.length) throw invalidRequest('urls: none is an http or https URL');
  const { urls: _urls, ...options } = o;
  // A job scrapes each URL once: a URL listed twice answers one document.
  return { options, urls: uniqueUrls(urls), invalid, skipInvalid };
}
