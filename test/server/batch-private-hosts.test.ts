/**
 * An outside attack (issue 39) found: a batch none of whose URLs may be reached is 403 forbidden_target, nothing
 * charged (app/targets.ts). The cap of 200 host names looked up counts distinct `host`s (name AND
 * port), and reaching it returns before anything — the address literals included — is checked.
 * So 201 ports of `localhost` (one name, loopback) plus private literals are accepted (202) and
 * charged, though every URL is private.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

describe('batch: of private URLs past the name cap', () => {
  let guarded: TestService;
  beforeAll(async () => {
    guarded = await startTestService('sqlite', { TRAWL_ALLOW_PRIVATE_NETWORK: '0' });
  }, 60_000);
  afterAll(async () => {
    await guarded?.stop();
  });

  it('200 ports of localhost are refused (control)', async () => {
    const { key, accountId } = await guarded.newKey(5);
    const urls = Array.from({ length: 200 }, (_, i) => `http://localhost:${1000 + i}/`);
    const r = await guarded.post('/v1/batch/scrape', { urls }, key);
    expect(r.status).toBe(403);
    expect(await guarded.credits(accountId)).toBe(5);
  });

  it('201 ports of one loopback name plus loopback/metadata literals are refused, nothing charged', async () => {
    const { key, accountId } = await guarded.newKey(5);
    const urls = [
      ...Array.from({ length: 201 }, (_, i) => `http://localhost:${1000 + i}/`),
      'http://127.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
    ];
    const r = await guarded.post('/v1/batch/scrape', { urls }, key);
    expect(r.status).toBe(403);
    expect(await guarded.credits(accountId)).toBe(5);
  });
});
