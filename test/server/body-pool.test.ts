/**
 * The body pool (body-pool.ts): large bodies read on a worker thread with their route's reader,
 * answering as a read on the event loop would; owners taken in turn; a worker out of memory fails
 * only its body (413); a pool whose workers cannot start reads bodies itself.
 */
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyPool, bodyWorkerSpawn } from '../../src/server/body-pool.js';
import { TrawlError } from '../../src/errors.js';

const pools: BodyPool[] = [];
const pool = (options: ConstructorParameters<typeof BodyPool>[0] = { size: 1 }) => {
  const p = new BodyPool(options);
  pools.push(p);
  return p;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const bytes = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: TrawlError) => ({ code: e.code, detail: e.detail }),
  );

describe('BodyPool', () => {
  it("reads a body with its route's reader on a worker, and says what is wrong in the words of the route", async () => {
    const p = pool();
    expect(
      await p.read('acc_a', bytes({ urls: ['http://a.test/1', 'http://a.test/1', 'http://a.test/2'] }), 'batch_scrape'),
    ).toEqual({
      urls: ['http://a.test/1', 'http://a.test/2'],
    });
    expect(await failure(p.read('acc_a', bytes({ urls: ['http://a.test/', 'mailto:x'] }), 'batch_scrape'))).toEqual({
      code: 'invalid_request',
      detail: 'urls[1]: must be an http or https URL',
    });
    expect(await failure(p.read('acc_a', bytes('{"urls":'), 'batch_scrape'))).toEqual({
      code: 'invalid_request',
      detail: 'body: is not valid JSON (parse error)',
    });
    expect(await failure(p.read('acc_a', bytes('['.repeat(100) + ']'.repeat(100)), 'batch_scrape'))).toMatchObject({
      code: 'invalid_request',
      detail: expect.stringMatching(/^body: nested more than 64 levels deep \(at character 65\)/),
    });
    // Millions of values are refused before JSON.parse builds them.
    expect(await failure(p.read('acc_a', bytes(`{"urls":[${'0,'.repeat(200_000)}0]}`), 'batch_scrape'))).toEqual({
      code: 'payload_too_large',
      detail: expect.stringContaining('may hold at most 100,000 values'),
    });
    expect(
      await p.read('acc_a', bytes({ urls: ['http://a.test/', 'nope'], ignoreInvalidURLs: true }), 'firecrawl_batch_v2'),
    ).toEqual({ options: { ignoreInvalidURLs: true }, urls: ['http://a.test/'], invalid: ['nope'], skipInvalid: true });
  });

  it('takes owners in turn: one that queued many bodies does not keep another waiting behind all of them', async () => {
    const p = pool();
    const done: string[] = [];
    const read = (owner: string, n: number) =>
      p
        .read(owner, bytes({ urls: [`http://${owner}.test/${n}`] }), 'batch_scrape')
        .then(() => done.push(`${owner}${n}`));
    // Queued before the worker is up: the order is the pool's, not the arrival's.
    await Promise.all([read('a', 1), read('a', 2), read('a', 3), read('a', 4), read('b', 1), read('c', 1)]);
    expect(done).toEqual(['a1', 'b1', 'c1', 'a2', 'a3', 'a4']);
  });

  it('a body waiting for a worker leaves the queue when its client goes away', async () => {
    const p = pool();
    const first = p.read('a', bytes({ urls: ['http://a.test/'] }), 'batch_scrape');
    const gone = new AbortController();
    const second = failure(p.read('a', bytes({ urls: ['http://a.test/2'] }), 'batch_scrape', gone.signal));
    expect(p.queued).toBe(2);
    gone.abort(new TrawlError('invalid_request', 'the client closed the connection'));
    expect(p.queued).toBe(1);
    expect(await second).toEqual({ code: 'invalid_request', detail: 'the client closed the connection' });
    await first;
  });

  it('a worker out of memory fails only its body, with 413, and the next body gets a new worker', async () => {
    const spawn = bodyWorkerSpawn()!;
    const p = pool({
      size: 1,
      spawn: (o) => spawn({ ...o, resourceLimits: { ...o.resourceLimits, maxOldGenerationSizeMb: 32 } }),
    });
    // 8 MB of text, then as much again in values, beside the worker's modules: over 32 MiB of heap.
    // (Each allocation stays well under the heap: one larger than all of it fails the process, not
    // the worker, which is why the pool's heap is six times the largest body.)
    const big = bytes({ urls: Array.from({ length: 8_000 }, (_, i) => `http://a.test/${i}/${'x'.repeat(1_000)}`) });
    const oom = await failure(p.read('a', big, 'batch_scrape'));
    expect(oom).toMatchObject({ code: 'payload_too_large', detail: expect.stringContaining('memory') });
    expect(await p.read('a', bytes({ urls: ['http://a.test/'] }), 'batch_scrape')).toEqual({
      urls: ['http://a.test/'],
    });
  });

  it('reads bodies itself when its workers cannot start', async () => {
    const p = pool({ size: 1, spawn: (o) => new Worker('throw new Error("no worker here")', { ...o, eval: true }) });
    expect(await p.read('a', bytes({ urls: ['http://a.test/'] }), 'batch_scrape')).toEqual({
      urls: ['http://a.test/'],
    });
    expect(await failure(p.read('a', bytes({ urls: [] }), 'batch_scrape'))).toMatchObject({ code: 'invalid_request' });
  });
});
