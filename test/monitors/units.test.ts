/** The small rules of monitors: interval grammar, backoff schedule, value normalisation, diff, marketplace hosts. */
import { createHash, createHmac } from 'node:crypto';
import { compactChanges } from '../../src/monitors/events.js';
import { unifiedDiff } from '../../src/monitors/textdiff.js';
import { describe, expect, it } from 'vitest';
import { parseInterval } from '../../src/monitors/interval.js';
import { retryDelayMs, signature } from '../../src/webhooks/index.js';
import { retryAfterMs } from '../../src/webhooks/retry.js';
import { diffValues, shouldNotify } from '../../src/monitors/diff.js';
import { normalise } from '../../src/monitors/fields.js';
import { nextDue } from '../../src/store/repos/monitors.js';
import { marketplaceForUrl, urlBelongsTo } from '../../src/engine/marketplace/registry.js';

describe('monitor rules', () => {
  it('parses intervals within bounds', () => {
    expect(parseInterval('30m', 60)).toBe(1800);
    expect(parseInterval('6h', 60)).toBe(21_600);
    expect(parseInterval('30d', 60)).toBe(2_592_000);
    expect(parseInterval('2s', 1)).toBe(2);
    expect(() => parseInterval('59s', 60)).toThrow(/from 1m to 30d/);
    expect(() => parseInterval('721h', 60)).toThrow(/out of bounds/);
    for (const bad of ['1.5h', ' 1h', '1H', '1 h', '01m', 'h', '', '1w'])
      expect(() => parseInterval(bad, 60), bad).toThrow(/^interval: /);
  });

  it('retries on a schedule of more than 24 h (5 s, 5 m, 30 m, 2 h, 5 h, 10 h, 10 h), scaled by the base, with at most 10 % added', () => {
    const steps = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, 5_000, () => 0));
    expect(steps).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(steps.reduce((a, b) => a + b, 0)).toBeGreaterThan(24 * 3600_000);
    // Beyond the schedule the last step repeats; the base scales every step (tests run it fast).
    expect(retryDelayMs(9, 5_000, () => 0)).toBe(36_000_000);
    expect([1, 2, 3].map((n) => retryDelayMs(n, 10, () => 0))).toEqual([10, 600, 3_600]);
    expect(retryDelayMs(1, 5_000, () => 0.999)).toBeLessThanOrEqual(5_500);
    expect(retryDelayMs(1, 5_000, () => 0.999)).toBeGreaterThan(5_000);
  });

  it('reads Retry-After on 429 and 503 only, in seconds or as an HTTP date, bounded to 24 h', () => {
    const now = Date.parse('2026-11-26T00:00:00Z');
    expect(retryAfterMs(429, '7', now)).toBe(7_000);
    expect(retryAfterMs(503, 'Thu, 26 Nov 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs(503, 'Wed, 25 Nov 2026 00:01:00 GMT', now)).toBe(0);
    expect(retryAfterMs(429, '999999', now)).toBe(24 * 3600_000);
    expect(retryAfterMs(500, '7', now)).toBeUndefined();
    expect(retryAfterMs(429, 'soon', now)).toBeUndefined();
    // Garbage is not a date (Date.parse reads "-5" and "1.5" as days of 2001): the schedule applies.
    for (const v of ['-5', '1.5', '2', ' 12 x', '0x10', 'Infinity', '1e9'])
      expect(retryAfterMs(429, v, now), v).toBe(/^\d+$/.test(v) ? Number(v) * 1000 : undefined);
    expect(retryAfterMs(429, '99999999999', now)).toBe(24 * 3600_000);
    expect(retryAfterMs(503, 'Sunday, 06-Nov-94 08:49:37 GMT', now)).toBe(0);
    expect(retryAfterMs(429, undefined, now)).toBeUndefined();
  });

  it('diffs long text in unified form at sentence boundaries, capped at a line', () => {
    const from = 'One. Two. Three. Four. Five. Six. Seven. Eight. Nine. Ten.';
    const to = 'One. Two. Three. Four. Five. 6! Seven. Eight. Nine. Ten. Eleven.';
    expect(unifiedDiff(from, to, 10_000)).toEqual({
      diff: [
        '--- from',
        '+++ to',
        '@@ -3,8 +3,9 @@',
        ' Three.',
        ' Four.',
        ' Five.',
        '-Six.',
        '+6!',
        ' Seven.',
        ' Eight.',
        ' Nine.',
        ' Ten.',
        '+Eleven.',
      ].join('\n'),
      truncated: false,
    });
    // From nothing (a null side): every line added, the old side empty.
    expect(unifiedDiff('', 'A. B.', 10_000).diff).toBe('--- from\n+++ to\n@@ -0,0 +1,2 @@\n+A.\n+B.');
    const capped = unifiedDiff(from, to, 30);
    expect(capped).toEqual({ diff: '--- from\n+++ to', truncated: true });
  });

  it('sends a string over 16 KiB as a diff with both hashes, small values whole', () => {
    const long = (w: string) =>
      Array.from({ length: 2000 }, (_, i) => `Sentence ${i} is ${i === 7 ? w : 'plain'}.`).join(' ');
    const out = compactChanges({
      price: { from: 1, to: 2 },
      markdown: { from: long('plain'), to: long('new') },
      note: { from: null, to: long('x') },
    }) as Record<string, any>;
    expect(out.price).toEqual({ from: 1, to: 2 });
    expect(out.markdown.diff).toContain('-Sentence 7 is plain.\n+Sentence 7 is new.');
    expect(out.markdown.from_sha256).toBe(createHash('sha256').update(long('plain')).digest('hex'));
    expect(out.note.from_sha256).toBeNull();
    expect(out.note).not.toHaveProperty('to');
  });

  it('signs as the contract says', () => {
    expect(signature('whsec_test', '{"a":1}')).toBe(
      `sha256=${createHmac('sha256', 'whsec_test').update('{"a":1}').digest('hex')}`,
    );
    expect(signature('whsec_test', '{"a":1}')).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(signature('whsec_test', '{"a":1}')).not.toBe(signature('whsec_other', '{"a":1}'));
  });

  it('normalises values so formatting is never a change', () => {
    expect(normalise('  Deep   Sea\nWidget ')).toBe('Deep Sea Widget');
    expect(normalise('')).toBeNull();
    expect(normalise({ b: 1, a: ' x ' })).toEqual({ a: 'x', b: 1 });
    expect(diffValues({ t: 'a b' }, { t: normalise('a  b') }, ['t'])).toEqual({});
  });

  it('treats a field new to the baseline as baseline, not change', () => {
    expect(diffValues(null, { p: 1 }, ['p'])).toEqual({});
    expect(diffValues({ p: 1 }, { p: 2, q: 3 }, ['p', 'q'])).toEqual({ p: { from: 1, to: 2 } });
    expect(shouldNotify({}, { p: 1 }, null)).toBe(false);
    expect(
      shouldNotify({ p: { from: 1, to: 2 } }, { p: 2 }, [
        { field: 'p', op: 'gte', value: 2 },
        { field: 'p', op: 'increased' },
      ]),
    ).toBe(true);
    expect(shouldNotify({ p: { from: 1, to: 2 } }, { p: 2 }, [{ field: 'p', op: 'ne', value: 2 }])).toBe(false);
  });

  it('keeps a monitor on its phase and skips missed runs', () => {
    const t0 = Date.parse('2026-11-24T00:00:00.000Z');
    expect(nextDue(t0, 60, t0 + 1)).toBe(t0 + 60_000);
    expect(nextDue(t0, 60, t0 + 60_000)).toBe(t0 + 120_000);
    expect(nextDue(t0, 60, t0 + 3_600_500)).toBe(t0 + 3_660_000);
  });

  it('maps marketplace hosts and regions', () => {
    expect(marketplaceForUrl(new URL('https://www.amazon.co.uk/dp/B0'))).toBe('amazon_uk');
    expect(marketplaceForUrl(new URL('https://smile.amazon.com/dp/B0'))).toBe('amazon_us');
    expect(marketplaceForUrl(new URL('https://m.ebay.de/itm/1'))).toBe('ebay_de');
    expect(marketplaceForUrl(new URL('https://www.etsy.com/listing/1'))).toBe('etsy_us');
    expect(marketplaceForUrl(new URL('https://www.etsy.com/de/listing/1'))).toBe('etsy_de');
    expect(marketplaceForUrl(new URL('https://www.bestbuy.ca/en-ca/product/1'))).toBe('bestbuy_ca');
    expect(marketplaceForUrl(new URL('https://amazon.com.evil.example/dp/B0'))).toBeUndefined();
    expect(urlBelongsTo(new URL('https://www.etsy.com/de/listing/1'), 'etsy_us')).toBe(false);
  });
});

describe('database clock', () => {
  it('does not take a measure whose round trip was slow (a stalled process would judge fresh work not yet due)', async () => {
    const { DbClock } = await import('../../src/store/clock.js');
    const clock = new DbClock();
    const t = Date.now();
    clock.recordForTest(t + 5_000 + 1, t, t + 2); // 2 ms round trip: offset 5 s
    expect(clock.offsetMs).toBe(5_000);
    // Asked, then the event loop stalled 40 s before the answer was read: half of it would be the error.
    clock.recordForTest(t + 5_000 + 1, t, t + 40_000);
    expect(clock.offsetMs).toBe(5_000);
    clock.recordForTest(t + 6_000 + 2, t, t + 4);
    expect(clock.offsetMs).toBe(6_000);
  });
});
