/**
 * Claims racing cancels on PostgreSQL (real server): a claim takes a job's first items while a
 * cancel of that job, just made, ends them. Both lock the job's row and its items; taken in
 * opposite orders (a claim had locked items before the row) PostgreSQL found a deadlock and
 * one of them failed. Every race must end with the job cancelled and no error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { jobs } from '../../src/store/index.js';

describe('job claims racing cancels (postgres)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('postgres');
  }, 60_000);
  afterAll(async () => svc?.stop());

  it('a claim and a cancel of a job just made never deadlock', async () => {
    const { accountId } = await svc.newKey(5);
    const db = svc.store.db;
    const errors: unknown[] = [];
    for (let round = 0; round < 40; round++) {
      const id = `job_race${String(round).padStart(16, '0')}`;
      const at = new Date().toISOString();
      await jobs.createJob(db, {
        id,
        accountId,
        kind: 'batch',
        options: {},
        urls: Array.from({ length: 20 }, (_, i) => `http://127.0.0.1:9/race/${round}/${i}`),
        maxItems: 20,
        at,
      });
      const outcomes = await Promise.allSettled([
        jobs.claimItems(db, new Date(), 8, 30_000, 8),
        jobs.cancelJob(db, accountId, id, at),
        jobs.claimItems(db, new Date(), 8, 30_000, 8),
      ]);
      for (const o of outcomes) if (o.status === 'rejected') errors.push(o.reason);
      expect((await jobs.getJob(db, accountId, id))?.state).toBe('cancelled');
    }
    expect(errors.map(String)).toEqual([]);
  }, 120_000);
});
