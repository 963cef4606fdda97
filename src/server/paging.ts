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

/**
 * One page of a newest-first list (`limit` ≤ 100, default 50, keyed by created_at and id): `list`
 * is asked for one row more than the page, which says whether a next_cursor is due.
 */
export async function newestFirst<T extends { created_at: string; id: string }>(
  request: FastifyRequest,
  list: (limit: number, after: { createdAt: string; id: string } | undefined) => Promise<T[]>,
): Promise<{ page: T[]; next_cursor: string | null }> {
  const limit = limitOf(request, 50, 100);
  const cursor = decodeCursor((request.query as Record<string, unknown>).cursor, 2);
  const rows = await list(limit + 1, cursor && { createdAt: cursor[0], id: cursor[1] });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, next_cursor: rows.length > limit && last ? encodeCursor([last.created_at, last.id]) : null };
}
