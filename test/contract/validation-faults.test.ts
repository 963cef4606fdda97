/** A 400 for a body of many faults is made in one pass over the body, not one per fault. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScrapeBody } from '../../src/contract/schemas.js';
import { parseBody } from '../../src/contract/validation.js';
import { TrawlError } from '../../src/errors.js';

afterEach(() => vi.restoreAllMocks());

describe('faults of a body with thousands of unknown keys', () => {
  it('reads each object of the body once, and reports the first ones in the order sent', () => {
    const body = Object.fromEntries<unknown>([
      ['url', 'https://example.com'],
      ...Array.from({ length: 5000 }, (_, i): [string, unknown] => [`k${i}`, 1]),
      ['constructor', 1],
      ['formt', ['markdown']],
    ]);
    // Each unknown key looked its position up in a fresh list of the body's keys: 20,000 keys (a
    // 200 kB body) held the process for minutes. Counted, not timed.
    const keys = vi.spyOn(Object, 'keys');
    let error: unknown;
    try {
      parseBody(ScrapeBody, body);
    } catch (e) {
      error = e;
    }
    expect(keys.mock.calls.length).toBeLessThan(100);
    keys.mockRestore();
    expect(error).toBeInstanceOf(TrawlError);
    const e = error as TrawlError & { fields: { errors?: { field: string; detail: string }[] } };
    expect(e.code).toBe('invalid_request');
    expect(e.detail).toMatch(/^k0: unknown field; k1: unknown field/);
    expect(e.detail).toMatch(/and 4992 more unknown fields$/);
    const errors = e.fields?.errors ?? [];
    expect(errors).toHaveLength(50);
    expect(errors.map((x) => x.field).slice(0, 3)).toEqual(['k0', 'k1', 'k2']);
  });

  it('still suggests a near name for the keys it reports', () => {
    let error: unknown;
    try {
      parseBody(ScrapeBody, { formt: ['markdown'], url: 'https://example.com', constructor: 1 });
    } catch (e) {
      error = e;
    }
    const e = error as TrawlError & { fields: { errors?: { field: string; detail: string }[] } };
    expect(e.fields?.errors?.map((x) => x.field)).toEqual(['formt', 'constructor']);
    expect(e.detail).toContain('did you mean formats?');
  });
});
