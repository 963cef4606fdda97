/**
 * A crawl as an account asks for it. Async: a job (app/jobs.ts), its start URL and webhook checked
 * first. Synchronous: the same machinery (a held job on the runners) answered when it ends, charged
 * through the surface's credit gate, and not charged when it fails (its pages dropped, nothing of
 * it readable later).
 */
import { isTrawlError } from '../errors.js';
import { canonicalUrl } from '../engine/crawl/canonical.js';
import { BROWSER_PAGE_MS } from '../engine/crawl/rich-page.js';
import type { ScrapeFormat } from '../engine/scrape.js';
import { checkPageOptions } from '../contract/page-options.js';
import type { CrawlBody } from '../contract/schemas.js';
import { formatsAndSchema } from '../contract/validation.js';
import type { CrawlJobOptions } from '../jobs/crawl-item.js';
import { crawlAsJob, settleSyncCrawl } from '../jobs/sync-crawl.js';
import { newId } from '../store/index.js';
import type { AppContext } from './context.js';
import { openJob, type JobHook, type Started } from './jobs.js';
import { refuseForbidden } from './targets.js';

/**
 * A crawl request checked (its schema, each page's waits within a rendered page's budget) and
 * turned into the job's options; `filesBase`: where its screenshots are reachable.
 */
export function crawlOptionsOf(body: CrawlBody, filesBase: string): CrawlJobOptions {
  const { formats, schema } = formatsAndSchema(body.formats, body.schema);
  // timeout_ms bounds the whole crawl; each page's waits must fit in a rendered page's budget.
  checkPageOptions({ ...body, timeout_ms: undefined }, BROWSER_PAGE_MS);
  const shots =
    !!body.formats?.some((f) => f.startsWith('screenshot')) || !!body.actions?.some((a) => a.type === 'screenshot');
  return {
    url: canonicalUrl(body.url) ?? body.url,
    max_depth: body.max_depth,
    limit: body.limit ?? (body.async ? 1000 : 10),
    include_paths: body.include_paths,
    exclude_paths: body.exclude_paths,
    allow_subdomains: body.allow_subdomains,
    respect_robots: body.respect_robots,
    use_sitemap: body.use_sitemap,
    formats: (formats as ScrapeFormat[] | undefined) ?? (schema ? ['markdown', 'json'] : ['markdown']),
    schema: body.schema as Record<string, unknown> | undefined,
    only_main_content: body.only_main_content,
    render: body.render,
    wait_for: body.wait_for,
    screenshot_format: body.screenshot_format,
    viewport: body.viewport,
    actions: body.actions as CrawlJobOptions['actions'],
    headers: body.headers,
    cookies: body.cookies,
    mobile: body.mobile,
    location: body.location,
    max_age: body.max_age,
    // Bounds each page (a synchronous crawl's bounds the whole crawl as well).
    timeout_ms: body.timeout_ms,
    ...(shots ? { files_base: filesBase } : {}),
  };
}

/**
 * An async crawl (/v1/crawl, Firecrawl's, the dashboard's), its options made by the surface
 * (crawlOptionsOf, or Firecrawl's table): checked in openJob's order, its start URL first.
 */
export async function startCrawl(
  ctx: AppContext,
  accountId: string,
  options: CrawlJobOptions,
  hook?: JobHook,
): Promise<Started> {
  return openJob(ctx, accountId, { kind: 'crawl', options, urls: [options.url], maxItems: options.limit, hook });
}

/** The surface's credit gate: reserve, run the work with its signal, keep or give back (withCredit). */
export type Pay = <T>(work: (signal: AbortSignal) => Promise<T>) => Promise<T>;

/** A synchronous crawl, answered when it ends (or its budget does). */
export async function crawlNow(
  ctx: AppContext,
  accountId: string,
  options: CrawlJobOptions,
  timeoutMs: number,
  pay: Pay,
): Promise<Awaited<ReturnType<typeof crawlAsJob>>> {
  await refuseForbidden(ctx, options.url);
  const id = newId('job');
  let result;
  try {
    result = await pay((signal) =>
      crawlAsJob(ctx.store, {
        id,
        accountId,
        options,
        timeoutMs,
        signal,
        wake: () => ctx.jobs?.wake(),
        maxBytes: ctx.config.answerMaxBytes,
      }),
    );
  } catch (e) {
    // Not charged: nothing of it is readable later (a job never made has nothing to drop).
    await settleSyncCrawl(ctx.store, id, false, isTrawlError(e) ? e.code : 'internal_error').catch(() => {});
    throw e;
  }
  await settleSyncCrawl(ctx.store, id, true);
  return result;
}
