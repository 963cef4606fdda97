/** Path and query parameters the operations share, and the operation helper. */
import type { OperationDoc } from '../openapi.js';

export const idParam = (prefix: string, what: string) => ({
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: `^${prefix}_[0-9A-Za-z]{20}$`, description: `The ${what}'s id` } },
});
export const limitQuery = (fallback: number, max: number, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: max, default: fallback }, ...extra },
});
export const cursorParam = { cursor: { type: 'string', description: 'next_cursor of the previous page' } };

export const doc = (d: OperationDoc) => d;
