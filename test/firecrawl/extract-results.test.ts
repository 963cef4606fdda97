/** The v1 extract answers one process keeps for Firecrawl's v1 SDK (extract-results.ts): per account, bounded in count, bytes and time. */
import { describe, expect, it } from 'vitest';
import { ExtractResults } from '../../src/server/firecrawl/extract-results.js';

describe('ExtractResults', () => {
  it('answers an id to its account only, and forgets it after an hour', () => {
    let now = 0;
    const kept = new ExtractResults(() => now);
    const id = kept.put('acc_a', { success: true, data: { title: 'A' } });
    expect(kept.get('acc_a', id)).toEqual({ success: true, data: { title: 'A' } });
    expect(kept.get('acc_b', id)).toBeUndefined();
    now = 3_600_001;
    expect(kept.get('acc_a', id)).toBeUndefined();
  });

  it('keeps at most 128 MiB of answers: large ones push the oldest out, the newest always stays', () => {
    const kept = new ExtractResults();
    // Answers carrying a page's 4 MB description each (an extraction of a big JSON-LD field).
    const big = 'd'.repeat(4_000_000);
    const ids = Array.from({ length: 40 }, (_, i) =>
      kept.put('acc_a', { success: true, data: { description: big, i } }),
    );
    expect(kept.get('acc_a', ids[0])).toBeUndefined();
    expect(kept.get('acc_a', ids[39])).toMatchObject({ data: { i: 39 } });
    const still = ids.filter((id) => kept.get('acc_a', id) !== undefined).length;
    expect(still).toBe(33);
    expect(kept.size).toBeLessThanOrEqual(128 * 1024 * 1024);
    // One answer above the whole budget is still kept, alone, for its caller to read back.
    const huge = kept.put('acc_b', { data: { description: 'h'.repeat(140 * 1024 * 1024) } });
    expect(kept.get('acc_b', huge)).toBeDefined();
    expect(kept.get('acc_a', ids[39])).toBeUndefined();
  });
});
