/**
 * A job whose pages are large (a batch of big pages in three formats): its Firecrawl status and
 * errors answers read only what they send. The real server runs with a 192 MB heap, and the job
 * holds 60 pages of 4 MB: reading pages a hundred (status) or a thousand (errors) at a time ran
 * the process out of memory; the errors listing now reads the failed pages only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, keys, openStore } from '../../src/store/index.js';
import { launchTrawl, type Launched } from '../helpers/trawl-process.js';

const PAGES = 60;
const PAGE_CHARS = 4_000_000;
const FAILED = new Set([7, 41]);
const id = 'job_largepages0000000000';

let dir: string;
let child: ChildProcess | undefined;
let base: string;
let key: string;
const journal: Launched[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trawl-large-'));
  const store = await openStore({ dataDir: dir });
  try {
    const acc = await accounts.createAccount(store.db, { email: 'large@test.local', credits: 10 });
    key = (await keys.createApiKey(store.db, { accountId: acc.id })).key;
    const at = new Date().toISOString();
    await store.db
      .insertInto('jobs')
      .values({
        id,
        account_id: acc.id,
        kind: 'batch',
        state: 'completed',
        options: '{}',
        total: PAGES,
        done: PAGES - FAILED.size,
        failed: FAILED.size,
        written: PAGES,
        max_items: PAGES,
        seq_next: PAGES,
        error: null,
        created_at: at,
        started_at: at,
        finished_at: at,
        webhook: null,
        webhook_events: null,
      })
      .execute();
    for (let k = 0; k < PAGES; k++) {
      const url = `https://big.test/${k}`;
      const failed = FAILED.has(k);
      const page = failed
        ? { url, error: 'fetch_failed', detail: `page ${k} failed` }
        : {
            url,
            final_url: url,
            markdown: `${k % 10}`.repeat(PAGE_CHARS),
            metadata: { title: `Page ${k}`, status_code: 200 },
          };
      await store.db
        .insertInto('job_items')
        .values({ job_id: id, seq: k, url, depth: 0, state: failed ? 'failed' : 'done', lease_until: null })
        .execute();
      await store.db
        .insertInto('job_pages')
        .values({ job_id: id, n: k + 1, seq: k, page: JSON.stringify(page), created_at: at })
        .execute();
    }
  } finally {
    await store.close();
  }
  const launched = await launchTrawl(
    ['serve'],
    { TRAWL_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'warn', NODE_OPTIONS: '--max-old-space-size=192' },
    journal,
  );
  child = launched.child;
  base = `${JSON.parse(launched.line).url}/firecrawl/v2/batch/scrape/${id}`;
}, 120_000);
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

const get = async (url: string) => {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } }).catch((e: Error) => {
    throw new Error(`${e.message}; the server said: ${journal.at(-1)?.err.slice(-500)}`);
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe('a job of large pages', () => {
  it('lists its errors without reading its pages', async () => {
    const r = await get(`${base}/errors`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      errors: [...FAILED].map((k) => ({
        id: `${id}-${k + 1}`,
        url: `https://big.test/${k}`,
        code: 'fetch_failed',
        error: `page ${k} failed`,
      })),
      robotsBlocked: [],
    });
  });

  it('answers its documents about 10 MB at a time, following next to the end', async () => {
    const urls: string[] = [];
    let next: string | undefined = base;
    let answers = 0;
    while (next && answers < 40) {
      const r = await get(next);
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeGreaterThan(0);
      urls.push(...r.body.data.map((d: any) => d.metadata.sourceURL));
      next = r.body.next;
      answers++;
    }
    expect(urls).toEqual(
      Array.from({ length: PAGES }, (_, k) => k)
        .filter((k) => !FAILED.has(k))
        .map((k) => `https://big.test/${k}`),
    );
    expect(answers).toBeGreaterThanOrEqual(20);
    expect(child!.exitCode).toBeNull();
  });
});
