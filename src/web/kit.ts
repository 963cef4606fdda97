/**
 * What the dashboard's page modules share: the HTML reply with its headers, dates as shown, the
 * posted form, and the kit routes.ts hands each module (the session guard, the page shell, the
 * CSRF field).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Raw } from './html.js';
import type { SessionInfo } from './session.js';

export type Form = Record<string, string | undefined>;
export const form = (request: FastifyRequest) => (request.body ?? {}) as Form;

export function send(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header(
      'content-security-policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'",
    )
    .send(body);
}

export const when = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 16) + ' UTC' : '—');

/** Handed by routes.ts to each page module (jobs, monitors, playground). */
export interface Kit {
  /** Pages behind a session: the handler gets it; without one the browser goes to /login. */
  authed: (
    h: (request: FastifyRequest, reply: FastifyReply, s: SessionInfo) => Promise<unknown>,
  ) => (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  /** A page of the signed-in dashboard: its navigation, account and notice around `body`. */
  shell: (
    s: SessionInfo,
    path: string,
    title: string,
    body: Raw,
    notice?: { kind: 'ok' | 'error'; text: string },
  ) => string;
  csrfField: (s: SessionInfo) => Raw;
  send: (reply: FastifyReply, status: number, body: string) => FastifyReply;
  when: (iso: string | null) => string;
}
