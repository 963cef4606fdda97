/**
 * The answer when a saved session (issue 44) no longer logs in: the contract's `blocked` (a login
 * wall is one of its causes) with `reason: "session_expired"` (docs/API.md, Decision), no credit.
 */
import { TrawlError } from '../errors.js';
import { targetStatusOf } from './fetch/page-model.js';
import type { SessionJar } from './fetch/session-jar.js';

export const SESSION_EXPIRED = 'session_expired';

export const sessionExpired = (jar: Pick<SessionJar, 'name'>, why: string): TrawlError =>
  new TrawlError(
    'blocked',
    `session "${jar.name}" has expired: ${why}; log in again (POST /v1/sessions/${encodeURIComponent(jar.name)}/refresh, or create it anew)`,
    {
      fields: { reason: SESSION_EXPIRED },
      retryable: false,
    },
  );

/** A 401 or 403 from the site while reading with a session: the session expired. */
export function expiredError(jar: Pick<SessionJar, 'name'>, url: string, e: unknown): TrawlError | undefined {
  const status = targetStatusOf(e);
  return status === 401 || status === 403 ? sessionExpired(jar, `${url} answered HTTP ${status}`) : undefined;
}

export const isSessionExpired = (e: unknown): e is TrawlError =>
  e instanceof TrawlError && e.fields.reason === SESSION_EXPIRED;
