/** Which URLs the client requests and follows: http(s) only, no fragment, no credentials; which answers are redirects. */
import { TrawlError } from '../../errors.js';

/**
 * Where a redirect leads, when the fetcher may follow it. The caller's URL was fine, so a
 * Location that is no URL or not http(s) (javascript:, file:, data:, ftp:) is the target's
 * fault: a 502, not a 400.
 */
export function redirectTarget(location: string, from: URL): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new TrawlError(
      'fetch_failed',
      `${from.href} redirects to "${location.slice(0, 200)}", which is not a valid URL`,
      { retryable: false },
    );
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new TrawlError(
      'fetch_failed',
      `${from.href} redirects to a ${next.protocol.replace(':', '')}: URL, which cannot be fetched`,
      { retryable: false },
    );
  }
  return fetchable(next);
}

/** A URL the fetcher may request: http(s) only, no credentials smuggled to another host. */
export function checkUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new TrawlError('invalid_request', `url: "${raw.slice(0, 200)}" is not a valid URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new TrawlError(
      'invalid_request',
      `url: only http and https URLs can be fetched (got ${u.protocol.replace(':', '')})`,
    );
  }
  return fetchable(u);
}

/**
 * A URL as it is requested: no fragment, and no credentials — they are never sent, nor
 * repeated in answers (the final URL is the last of these). Setters only when needed: each
 * one serialises the whole URL again.
 */
function fetchable(u: URL): URL {
  u.hash = '';
  if (u.username || u.password) {
    u.username = '';
    u.password = '';
  }
  return u;
}

/** A response to follow: 3xx (not 304) with a Location. */
export const isRedirect = (status: number, headers: Record<string, string>) =>
  status >= 300 && status < 400 && status !== 304 && !!headers.location;
