/**
 * POST /v1/batch/scrape's body read whole (the API's body worker and the dashboard's Jobs page
 * alike): the fields, the schema (422), the page options against every URL (a cookie's domain),
 * and the URLs de-duplicated — each a pass over 10,000 long URLs.
 */
import { BatchScrapeBody } from './schemas.js';
import { checkPageOptions } from './page-options.js';
import { formatsAndSchema, parseBody } from './validation.js';
import { uniqueUrls } from './urls.js';

export function readBatchScrape(body: unknown): BatchScrapeBody {
  const b = parseBody(BatchScrapeBody, body);
  formatsAndSchema(b.formats, b.schema);
  checkPageOptions({ ...b, url: undefined, urls: b.urls });
  // A URL listed twice (in any spelling) is scraped once (one page per URL of the job), in the order first listed.
  return { ...b, urls: uniqueUrls(b.urls) };
}
