/**
 * Targets refused when work is asked for (403 forbidden_target, nothing charged), as a
 * synchronous request would be: a crawl's start URL, a webhook's URL, a batch none of whose URLs
 * may be reached (for a job, in app/jobs.ts's openJob). Other failures (DNS …) are left to the attempt itself.
 */
import { isIP } from 'node:net';
import { TrawlError, isTrawlError } from '../errors.js';
import type { AppContext } from './context.js';

/** A URL on a private address is refused now; `prefix` names the field in the detail. */
export async function refuseForbidden(
  ctx: Pick<AppContext, 'engine'> | { engine: Pick<AppContext['engine'], 'http'> },
  url: string,
  prefix = '',
): Promise<void> {
  try {
    await ctx.engine.http.checkTarget(url);
  } catch (e) {
    if (isTrawlError(e) && e.code === 'forbidden_target')
      throw new TrawlError('forbidden_target', `${prefix}${e.detail}`, { retryable: false });
  }
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
export async function refuseAllForbidden(ctx: AppContext, urls: string[]): Promise<void> {
  // One URL per host name: the port changes nothing of where it goes.
  const byHost = new Map<string, string>();
  let names = 0;
  let unchecked = false;
  for (const url of urls) {
    const { hostname } = new URL(url);
    if (byHost.has(hostname)) continue;
    if (isIP(hostname.replace(/^\[|\]$/g, '')) === 0 && ++names > NAMES_CHECKED) {
      // Past the cap names are not looked up (the batch is let through), but literals still are.
      unchecked = true;
      continue;
    }
    byHost.set(hostname, url);
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
  if (first && !unchecked)
    throw new TrawlError(
      'forbidden_target',
      `urls: none may be reached — ${byHost.size === 1 ? '' : `every host is private; the first: `}${first.detail}`,
      { retryable: false },
    );
}
