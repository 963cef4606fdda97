/**
 * Claims racing cancels on PostgreSQL (real server): a claim takes a job's first items while a
 * cancel of that job, just made, ends them. Both lock the job's row and its items; taken in
 * opposite orders (a claim had locked items before the row) PostgreSQL found a deadlock and
 * one of them failed. Every race must end with the job cancelled and no error.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, startTestService, type TestService, PG_AVAILABLE } from '../helpers/service.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accounts, jobs, openStore } from '../../src/store/index.js';

type Db = Parameters<typeof jobs.createJob>[0];
/** A batch job of `n` URLs on a closed local port (the service's runner may try them: refused at once). */
const batchJob = (db: Db, accountId: string, id: string, n: number) =>
  jobs.createJob(db, {
    id,
    accountId,
    kind: 'batch',
    options: {},
    urls: Array.from({ length: n }, (_, i) => `http://127.0.0.1:9/${id}/${i}`),
    maxItems: n,
    at: new Date().toISOString(),
  });

describe.skipIf(!PG_AVAILABLE)('job claims racing cancels (postgres)', () => {
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
      await batchJob(db, accountId, id, 20);
      const outcomes = await Promise.allSettled([
        jobs.claimItems(db, new Date(), 8, 30_000, 8),
        jobs.cancelJob(db, accountId, id, at),
        jobs.claimItems(db, new Date(), 8, 30_000, 8),
      ]);
      for (const o of outcomes) if (o.status === 'rejected') errors.push(o.reason);
      expect({ state: (await jobs.getJob(db, accountId, id))?.state, errors: errors.map(String) }).toEqual({
        state: 'cancelled',
        errors: [],
      });
    }
    expect(errors.map(String)).toEqual([]);
  }, 120_000);

  it('a claim of a running job and a cancel holding its row never deadlock', async () => {
    // A claim took the job's first items (it runs). A cancel locks the job's row, then its items;
    // a claim between the two must take more items without waiting for the row (a claim that
    // updated a running job's row would wait for the cancel, which waits for its items).
    // Played step by step with a transaction of our own.
    const { accountId } = await svc.newKey(5);
    const db = svc.store.db;
    const id = 'job_runrace00000000000';
    await batchJob(db, accountId, id, 40);
    expect(await jobs.claimItems(db, new Date(), 4, 30_000, 4)).toHaveLength(4);
    const cancel = new pg.Client({ connectionString: svc.config.databaseUrl });
    await cancel.connect();
    try {
      await cancel.query('BEGIN');
      await cancel.query(`UPDATE jobs SET state = 'cancelled' WHERE id = $1`, [id]);
      const claim = jobs.claimItems(db, new Date(), 8, 30_000, 8).then(
        (items) => ({ items: items.length }),
        (e) => ({ error: String(e) }),
      );
      await new Promise((r) => setTimeout(r, 300));
      const items = await cancel
        .query(`UPDATE job_items SET state = 'cancelled' WHERE job_id = $1 AND state IN ('queued', 'running')`, [id])
        .then(
          (r) => ({ rows: r.rowCount }),
          (e) => ({ error: String(e) }),
        );
      await cancel.query('COMMIT').catch(() => undefined);
      expect({ claim: await claim, items }).toEqual({ claim: { items: 8 }, items: { rows: 40 } });
    } finally {
      await cancel.end();
    }
    expect((await jobs.getJob(db, accountId, id))?.state).toBe('cancelled');
  });

  it('a job made while a claim waits is not taken by that claim (its row was not locked first)', async () => {
    // A claim's first statement locks the queued jobs it sees. A job made while that statement
    // waited (on another job's row) is not among them; taking its items and then updating its
    // row, the claim deadlocked with a cancel of that job (row, then items). Played step by step
    // on a store of our own (no runner), with transactions of our own.
    const pgDb = await createTestDatabase();
    const dir = mkdtempSync(join(tmpdir(), 'trawl-claim-race-'));
    const store = await openStore({ dataDir: dir, databaseUrl: pgDb.url });
    const holder = new pg.Client({ connectionString: pgDb.url });
    const canceller = new pg.Client({ connectionString: pgDb.url });
    try {
      const acc = await accounts.createAccount(store.db, { email: 'race@test.local', credits: 10 });
      const make = (id: string) => batchJob(store.db, acc.id, id, 10);
      await make('job_a_first0000000000');
      await holder.connect();
      await canceller.connect();
      // Another process holds the first job's row: the claim's first statement waits on it.
      await holder.query('BEGIN');
      await holder.query(`SELECT id FROM jobs WHERE id = 'job_a_first0000000000' FOR UPDATE`);
      const claim = jobs.claimItems(store.db, new Date(), 20, 30_000, 20).then(
        (items) => items.map((i) => i.job_id),
        (e) => String(e),
      );
      await new Promise((r) => setTimeout(r, 300));
      await make('job_b_later0000000000');
      // A cancel of the new job takes its row…
      await canceller.query('BEGIN');
      await canceller.query(`UPDATE jobs SET state = 'cancelled' WHERE id = 'job_b_later0000000000'`);
      await holder.query('COMMIT');
      await new Promise((r) => setTimeout(r, 300));
      // …then its items.
      const items = await canceller
        .query(`UPDATE job_items SET state = 'cancelled' WHERE job_id = 'job_b_later0000000000'`)
        .then(
          (r) => r.rowCount,
          (e) => String(e),
        );
      await canceller.query('COMMIT').catch(() => undefined);
      const taken = await claim;
      expect({ items, taken: Array.isArray(taken) ? [...new Set(taken)] : taken }).toEqual({
        items: 10,
        taken: ['job_a_first0000000000'],
      });
    } finally {
      await holder.end().catch(() => undefined);
      await canceller.end().catch(() => undefined);
      await store.close();
      await pgDb.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
