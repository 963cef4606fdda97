/**
 * Dashboard sessions: an HTTP-only, SameSite=Lax cookie (Secure over TLS) holding a random
 * token whose hash the store keeps; every mutating form carries the session's CSRF token,
 * compared in constant time, and a cross-site Origin is refused outright.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { accounts, sessions, type Account, type Store } from '../store/index.js';

export const COOKIE = 'trawl_session';

export interface SessionInfo {
  token: string;
  csrf: string;
  account: Account;
}

export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      // A broken escape (`%zz`) is no session, not a 500.
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  maxAgeSeconds: number,
): void {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header('set-cookie', `${COOKIE}=${token}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${maxAgeSeconds}${secure}`);
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header('set-cookie', `${COOKIE}=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0${secure}`);
}

export async function currentSession(store: Store, request: FastifyRequest): Promise<SessionInfo | undefined> {
  const token = cookieOf(request, COOKIE);
  if (!token || !/^[0-9A-Za-z]{43}$/.test(token)) return undefined;
  const row = await sessions.findSession(store.db, token);
  if (!row) return undefined;
  const account = await accounts.findAccountById(store.db, row.account_id);
  return account ? { token, csrf: row.csrf, account } : undefined;
}

/**
 * The request was not sent by another site: its Origin, or without one its Referer, names this
 * host. With neither header (curl, scripts) it passes: browsers send Origin on every POST form.
 * `Origin: null` (sandboxed frame, data: URL) is refused unless `allowNull` (a CSRF token covers).
 */
export function fromThisSite(request: FastifyRequest, allowNull = false): boolean {
  const source = request.headers.origin ?? request.headers.referer;
  if (source === undefined || source === '') return true;
  if (source === 'null') return allowNull;
  try {
    return new URL(source).host === request.headers.host;
  } catch {
    return false;
  }
}

/**
 * Where to go after logging in: a path on this site, else the overview. Browsers read `\` as
 * `/` and drop tabs and newlines, so `/\evil`, `/%5Cevil` and `/\t/evil` all mean `//evil`
 * (another host): any backslash or control character, raw or once decoded, is refused.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2048) return '/';
  let decoded: string;
  try {
    decoded = decodeURIComponent(next);
  } catch {
    return '/';
  }
  // eslint-disable-next-line no-control-regex -- control characters (and spaces) are what these refuse
  if (!/^\/(?![/\\])/.test(next) || /[\\\x00-\x20\x7f]/.test(next)) return '/';
  // eslint-disable-next-line no-control-regex -- as above, once decoded
  if (!/^\/(?![/\\])/.test(decoded) || /[\\\x00-\x1f\x7f]/.test(decoded)) return '/';
  const base = 'http://trawl.invalid';
  const u = new URL(next, base);
  const path = u.pathname + u.search + u.hash;
  // Dot segments can resolve to a network path (`/.//evil` → `//evil`): never hand one back.
  return u.origin === base && !/^\/[/\\]/.test(path) ? path : '/';
}

/** The form's CSRF token matches the session's, and the request does not come from another site. */
export function csrfOk(request: FastifyRequest, expected: string): boolean {
  if (!fromThisSite(request, true)) return false;
  const got = String((request.body as Record<string, unknown> | undefined)?.csrf ?? '');
  const a = Buffer.from(got);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
