/** The contract's interval grammar: `<integer><unit>`, unit s|m|h|d, from the minimum to 30 days. */
import { invalidRequest } from '../errors.js';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
export const MAX_INTERVAL_SECONDS = 30 * 86_400;

const describe = (seconds: number) =>
  seconds % 86_400 === 0
    ? `${seconds / 86_400}d`
    : seconds % 3600 === 0
      ? `${seconds / 3600}h`
      : seconds % 60 === 0
        ? `${seconds / 60}m`
        : `${seconds}s`;

/** Seconds of an interval such as "30m"; a 400 naming `field` for anything else. */
export function parseInterval(raw: unknown, minSeconds: number, field = 'interval'): number {
  const bounds = `from ${describe(minSeconds)} to 30d`;
  if (typeof raw !== 'string')
    throw invalidRequest(
      `${field}: ${raw === undefined ? 'is required' : `must be a string such as "30m" (<integer><s|m|h|d>, ${bounds})`}`,
    );
  const m = /^([1-9]\d{0,7})([smhd])$/.exec(raw);
  if (!m)
    throw invalidRequest(
      `${field}: "${raw.slice(0, 40)}" is not an interval; use <integer><s|m|h|d> such as "30m", "6h" or "1d" (${bounds})`,
    );
  const seconds = Number(m[1]) * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS];
  if (seconds < minSeconds || seconds > MAX_INTERVAL_SECONDS)
    throw invalidRequest(`${field}: "${raw}" is out of bounds; it must be ${bounds}`);
  return seconds;
}
