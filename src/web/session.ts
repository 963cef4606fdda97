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

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number): void {
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

/** The form's CSRF token matches the session's, and the request does not come from another site. */
export function csrfOk(request: FastifyRequest, expected: string): boolean {
  const origin = request.headers.origin;
  if (origin && origin !== 'null') {
    try {
      if (new URL(origin).host !== request.headers.host) return false;
    } catch {
      return false;
    }
  }
  const got = String((request.body as Record<string, unknown> | undefined)?.csrf ?? '');
  const a = Buffer.from(got);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
