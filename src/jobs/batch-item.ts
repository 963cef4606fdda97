/**
 * One page of a batch scrape: the page as /v1/scrape reads it, fetched politely — in its host's
 * turn (at most so many pages of a host at once, requests spaced by the host's robots.txt
 * Crawl-delay), as a crawl's pages are (./crawl-item.ts). **Decision**: robots.txt's Disallow
 * does not refuse a batch page (its URLs were named by the caller, as a scrape's is); only its
 * Crawl-delay is followed. A page the result cache answers is not fetched and waits for no turn.
 */
import { compileSchema, scrape, type Engine } from '../engine/index.js';
import type { CrawlStores, RobotsCache } from '../engine/crawl/index.js';
import { crawlPageOptions, type JobPageOptions } from './page-options.js';
import { hostTurn, type Gate } from '../engine/crawl/index.js';
import type { ClearanceJar } from '../engine/fetch/clearance.js';

/** What a batch item is scraped with (the request's scrape options, as stored on the job). */
export interface BatchOptions extends JobPageOptions {
  timeout_ms?: number;
  /** PDF documents: read at most max_pages pages. */
  pdf?: { max_pages?: number };
}

/** Thrown from a page's turn when its job no longer wants it. */
class Unwanted extends Error {}

/** The page; undefined when `wanted` said no once its host's turn came (its job was cancelled). */
export async function batchItem(
  engine: Engine,
  url: string,
  o: BatchOptions,
  robots: RobotsCache,
  hosts: Gate,
  wanted?: () => Promise<boolean>,
  stores: CrawlStores = {},
  clearance?: ClearanceJar,
): Promise<Record<string, unknown> | undefined> {
  const schema = o.schema ? compileSchema(o.schema) : undefined;
  const turn = async () => {
    const u = new URL(url);
    // robots.txt as a crawl reads it (one read per origin, kept); one that cannot be read asks no delay
    // (a refused address is the fetch's to report).
    const rules = await robots.get(engine, u.origin).catch(() => undefined);
    const leave = await hostTurn(hosts, u.host, (rules?.crawlDelaySeconds ?? 0) * 1000, wanted);
    if (!leave) throw new Unwanted();
    return leave;
  };
  let r;
  try {
    r = await scrape(engine, {
      url,
      formats: o.formats ?? (schema ? ['markdown', 'json'] : ['markdown']),
      schema,
      onlyMainContent: o.only_main_content,
      timeoutMs: o.timeout_ms,
      pdf: o.pdf?.max_pages !== undefined ? { maxPages: o.pdf.max_pages } : undefined,
      ...crawlPageOptions(o, stores),
      llm: engine.llm,
      turn,
      clearance,
    });
  } catch (e) {
    if (e instanceof Unwanted) return undefined;
    throw e;
  }
  const { url: final, metadata, sources: _sources, warnings, ...content } = r;
  return {
    url,
    final_url: final,
    status_code: metadata.status_code,
    title: metadata.title ?? null,
    ...content,
    metadata,
    ...(warnings ? { warnings } : {}),
  };
}
