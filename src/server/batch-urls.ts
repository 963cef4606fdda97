/**
 * A batch's URLs as a job takes them (v1 and the Firecrawl surface alike): spelled one way, so
 * a URL listed twice in other spellings is scraped once, and refused at once when none of them
 * may be reached, as a crawl's private start URL is.
 */
import { isIP } from 'node:net';
import { TrawlError, isTrawlError } from '../errors.js';
import type { ServerContext } from './context.js';

/**
 * Distinct URLs in the order first listed, each without its fragment and as the URL parser
 * writes it (host in lower case, no default port, `.` and `..` segments resolved): `/a`, `/a#x`,
 * `HOST/a`, `:80/a` and `/./a` are one page. The query is kept as given (a server may read its order).
 */
export function uniqueUrls(urls: string[]): string[] {
  const seen = new Set<string>();
  for (const raw of urls) {
    const u = new URL(raw);
    u.hash = '';
    seen.add(u.href);
  }
  return [...seen];
}

/**
 * Distinct host names resolved, at most, before a batch is taken (the rest fail page by page if
 * they must). Address literals cost no lookup: all of them are checked.
 */
const NAMES_CHECKED = 200;

/**
 * 403 forbidden_target (nothing charged) when no URL of the batch may be reached: every host
 * looked at is private. One public host (or one whose name does not resolve now: that is the
 * page's own failure) lets the batch through; its private URLs then fail page by page.
 */
export async function refuseAllForbidden(ctx: ServerContext, urls: string[]): Promise<void> {
  const byHost = new Map<string, string>();
  let names = 0;
  for (const url of urls) {
    const { host, hostname } = new URL(url);
    if (byHost.has(host)) continue;
    byHost.set(host, url);
    if (isIP(hostname.replace(/^\[|\]$/g, '')) === 0 && ++names > NAMES_CHECKED) return;
  }
  let first: TrawlError | undefined;
  for (const url of byHost.values()) {
    try {
      await ctx.engine.http.checkTarget(url);
      return;
    } catch (e) {
      if (!isTrawlError(e) || e.code !== 'forbidden_target') return;
      first ??= e;
    }
  }
  if (first)
    throw new TrawlError(
      'forbidden_target',
      `urls: none may be reached — ${byHost.size === 1 ? '' : `every host is private; the first: `}${first.detail}`,
      { retryable: false },
    );
}
