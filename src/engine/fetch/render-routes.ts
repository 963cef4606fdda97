/**
 * The routes a render's context may get: the caller's headers to the target's own site only
 * (`sendToSite`), and, for a remote browser, every request made by the guarded HTTP client
 * (`routeThroughGuard`).
 */
import type { BrowserContext } from 'playwright-core';
import { fetchFailed, isTrawlError } from '../../errors.js';
import { authorityKey, type ProxySession } from './browser-proxy.js';
import type { HttpClient, ProxyTier } from './http.js';
import { siteOf } from './site.js';

/** A byte count as people read it (the budget's warnings). */
export const sizeOf = (n: number) => (n >= 2 ** 20 ? `${Math.round(n / 2 ** 20)} MiB` : `${Math.round(n / 1024)} KiB`);

/** Request headers a routed request does not carry over: the connection's, the proxy's, the encoding offered. */
const ROUTE_DROPPED =
  /^(?:host|connection|keep-alive|proxy-.*|te|trailer|transfer-encoding|upgrade|content-length|accept-encoding)$/i;

/**
 * The caller's headers on every request of the page to the target's own site, and on no other.
 * Chromium carries headers set on an intercepted request over to the redirects it follows, so a
 * site request is not continued with them: it is made by Playwright (through the render's context,
 * its proxy session and its cookies) with redirects not followed, and its answer handed to the
 * page, which follows a redirect itself — to a request that is routed again, and gets the headers
 * only if it is on the site. Requests to other sites are not intercepted at all.
 */
export async function sendToSite(
  context: BrowserContext,
  url: string,
  headers: Record<string, string>,
  deadline: number,
): Promise<void> {
  const onSite = siteOf(url);
  await context.route(
    (u) => onSite(u),
    async (route) => {
      try {
        const response = await route.fetch({
          headers: { ...route.request().headers(), ...headers },
          maxRedirects: 0,
          timeout: Math.max(1, deadline - Date.now()),
        });
        await route.fulfill({ response });
      } catch {
        await route.abort('failed').catch(() => undefined);
      }
    },
  );
}

/** The caller's headers for one render and the site they may go to (a remote browser's render). */
export interface SiteHeaders {
  onSite?: (u: URL | string) => boolean;
  headers?: Record<string, string>;
}

/**
 * A remote browser (Browserless, a cloud browser) runs elsewhere: it cannot use this machine's
 * guarded proxy, nor be trusted to resolve names as this service does. So none of its pages'
 * requests reach the network from it: each is intercepted and made by the guarded HTTP client
 * (the address guard on the resolved address, TRAWL_RESOLVE pins, the render's proxy tier),
 * redirects followed by the client (Chromium would follow a fulfilled redirect past interception:
 * the page shows the last answer at the first URL; its final URL is kept for the answer), and
 * WebSockets refused.
 * What interception cannot see (the browser's own background traffic) goes to the context's
 * proxy, a loopback port of this machine that the remote browser cannot reach: it fails closed.
 */
export async function routeThroughGuard(
  context: BrowserContext,
  http: HttpClient,
  session: ProxySession,
  tier: ProxyTier,
  finalUrls: Map<string, string>,
  maxBytes: number,
  site: SiteHeaders = {},
): Promise<void> {
  // What the render's requests moved in all, against the same budget as the local browser's proxy.
  let bytes = 0;
  await context.route('**/*', async (route) => {
    const request = route.request();
    const u = new URL(request.url());
    // Nothing but http(s) leaves through here; the rest fails closed.
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return void route.abort().catch(() => undefined);
    try {
      const headers = await request.allHeaders();
      // The connection is the client's own; so is the encoding (it decodes what it offers: no zstd).
      for (const h of Object.keys(headers)) if (ROUTE_DROPPED.test(h)) delete headers[h];
      // The caller's headers, to the target's own site only.
      if (site.headers && site.onSite?.(u)) Object.assign(headers, site.headers);
      bytes += Number(request.postDataBuffer()?.length ?? 0);
      if (bytes > maxBytes) throw fetchFailed(`the page sent or downloaded more than ${sizeOf(maxBytes)}`);
      const res = await http.request(u.href, {
        method: (['GET', 'POST', 'HEAD'].includes(request.method()) ? request.method() : 'GET') as 'GET',
        headers,
        body: request.postDataBuffer() ?? undefined,
        proxyTier: tier,
        timeoutMs: 30_000,
      });
      // Chromium follows a fulfilled redirect itself, past interception: so the client follows
      // redirects (each hop guarded) and the page gets the last answer at the URL it asked for.
      if (res.url !== u.href && request.isNavigationRequest() && request.frame().parentFrame() === null)
        finalUrls.set(u.href, res.url);
      bytes += res.body.length;
      const back = { ...res.headers };
      // The body is decoded already; its length is what it is now.
      delete back['content-encoding'];
      delete back['content-length'];
      delete back['transfer-encoding'];
      await route.fulfill({ status: res.status, headers: back, body: res.body });
    } catch (e) {
      if (isTrawlError(e) && e.code === 'forbidden_target') {
        const key = authorityKey(u.hostname, Number(u.port) || (u.protocol === 'https:' ? 443 : 80));
        if (!session.refused.has(key)) session.refused.set(key, e);
      }
      await route
        .abort(isTrawlError(e) && e.code === 'forbidden_target' ? 'blockedbyclient' : 'failed')
        .catch(() => undefined);
    }
  });
  await context.routeWebSocket(/.*/, (ws) => ws.close()).catch(() => undefined);
}
