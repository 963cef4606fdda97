/**
 * A remote browser's requests from targets Playwright's context routes do not see — a popup
 * before its page is set up, a SharedWorker, a service worker — paused by the DevTools Fetch
 * domain on the realm's own session (realms.ts) and made by the guarded client, as
 * `routeThroughGuard` makes the page's. What is refused is failed as the browser's own block.
 */
import { isTrawlError } from '../../errors.js';
import { authorityKey, type ProxySession } from './browser-proxy.js';
import type { HttpClient, ProxyTier } from './http.js';

export interface PausedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** The body as sent, when the browser had it to hand (Fetch.requestPaused's postData). */
  postData?: string;
}

/** What the paused request is answered with: Fetch.fulfillRequest's or Fetch.failRequest's parameters. */
export type RouteAnswer =
  | { fulfill: { responseCode: number; responseHeaders: { name: string; value: string }[]; body: string } }
  | { fail: 'BlockedByClient' | 'Failed' };

export type RealmRoute = (request: PausedRequest) => Promise<RouteAnswer>;

/** Request headers not carried over: the connection's, the proxy's, the encoding offered (as render-routes.ts). */
const DROPPED =
  /^(?:host|connection|keep-alive|proxy-.*|te|trailer|transfer-encoding|upgrade|content-length|accept-encoding)$/i;

export function guardedRealmRoute(http: HttpClient, session: ProxySession, tier: ProxyTier): RealmRoute {
  return async (request) => {
    const u = new URL(request.url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return { fail: 'BlockedByClient' };
    try {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(request.headers)) if (!DROPPED.test(k)) headers[k.toLowerCase()] = v;
      const res = await http.request(u.href, {
        method: (['GET', 'POST', 'HEAD'].includes(request.method) ? request.method : 'GET') as 'GET',
        headers,
        body: request.postData !== undefined ? Buffer.from(request.postData) : undefined,
        proxyTier: tier,
        timeoutMs: 30_000,
      });
      const responseHeaders = Object.entries(res.headers)
        // The body is decoded already; its length is what it is now.
        .filter(([k]) => !/^(?:content-encoding|content-length|transfer-encoding)$/i.test(k))
        .map(([name, value]) => ({ name, value: String(value) }));
      return { fulfill: { responseCode: res.status, responseHeaders, body: res.body.toString('base64') } };
    } catch (e) {
      if (isTrawlError(e) && e.code === 'forbidden_target') {
        const key = authorityKey(u.hostname, Number(u.port) || (u.protocol === 'https:' ? 443 : 80));
        if (!session.refused.has(key)) session.refused.set(key, e);
        return { fail: 'BlockedByClient' };
      }
      return { fail: 'Failed' };
    }
  };
}
