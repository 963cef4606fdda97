/**
 * An outside attack (issue 39) found: a small PDF of one account waits behind other accounts' slow PDFs for the
 * whole of their budget. A PDF is "heavy" whatever its size and goes only to an idle worker; two
 * other owners (two accounts, each allowed one heavy job) holding both workers of a 2-core pool
 * with PDFs that run to the budget (10 s, then 504 — not charged) make a 1-page PDF wait ~10 s.
 * Measured against the service (2 cores, default pool): the victim's small PDF took 9.1–11.5 s
 * on every try while two attacker accounts looped on a 300-page PDF (all attacker requests 504,
 * their credits untouched).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DocumentPool } from '../../../src/engine/document/pool.js';
import { makePdf, makePdfBomb } from '../../helpers/pdf.js';

const workerUrl = new URL('../../../dist/engine/document/worker.js', import.meta.url);
const compiled = existsSync(fileURLToPath(workerUrl));

describe.skipIf(!compiled)('pool: small PDF behind two owners’ slow PDFs', () => {
  const pool = new DocumentPool({ size: 2, workerUrl, jobTimeoutMs: 10_000, warmUpPasses: 0 });
  afterAll(() => pool.close());

  it('a one-page PDF of a third owner is answered while two others’ slow PDFs hold both workers', async () => {
    await pool.ready();
    const pages = Array.from({ length: 300 }, (_, i) =>
      Array.from({ length: 40 }, (_, j) => `page ${i} line ${j} lorem ipsum dolor sit amet consectetur`),
    );
    const slow = new Uint8Array(await makePdfBomb(1024, { before: pages }));
    let hogsDone = 0;
    const hogs = ['attacker-1', 'attacker-2'].map((owner) =>
      pool
        .processPdf(slow.slice(), { maxPages: 5000 }, { owner })
        .catch((e: Error) => e)
        .finally(() => hogsDone++),
    );
    await new Promise((r) => setTimeout(r, 300));
    const r = await pool.processPdf(new Uint8Array(makePdf(['Hello victim'])), {}, { owner: 'victim' });
    expect(r.markdown).toContain('Hello victim');
    // Answered while both slow PDFs still hold their workers (each runs to its 10 s budget), not
    // after one of them (the time itself is bench:abuse's: < 2 s on an idle machine).
    expect(hogsDone).toBe(0);
    await Promise.all(hogs);
  }, 40_000);
});
