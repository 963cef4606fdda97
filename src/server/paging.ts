/** Paging of list endpoints: `limit` and opaque cursors from the query string. */
import type { FastifyRequest } from 'fastify';
import { invalidRequest } from '../errors.js';

/** `limit` from the query string: an integer in bounds, or the default. */
export function limitOf(request: FastifyRequest, fallback: number, max: number): number {
  const raw = (request.query as Record<string, unknown>)?.limit;
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || n < 1 || n > max)
    throw invalidRequest(`limit: must be an integer from 1 to ${max}`);
  return n;
}

export const encodeCursor = (parts: string[]) => Buffer.from(parts.join('|')).toString('base64url');
export function decodeCursor(raw: unknown, parts: number): string[] | undefined {
  if (raw === undefined) return undefined;
  const decoded = typeof raw === 'string' ? Buffer.from(raw, 'base64url').toString().split('|') : [];
  // Cursors hold timestamps, ids and numbers: a control character or invalid UTF-8 (U+FFFD once
  // decoded) is forged, and PostgreSQL would refuse a NUL in a query parameter (a 500).
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (decoded.length !== parts || decoded.some((p) => !p || /[\u0000-\u001f\u007f\ufffd]/.test(p)))
    throw invalidRequest('cursor: is not a cursor this API returned; use next_cursor from the previous page');
  return decoded;
}
