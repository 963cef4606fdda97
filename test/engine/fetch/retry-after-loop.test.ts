/**
 * An outside attack (issue 42) found, for patience: a target answering 429 with `Retry-After: 0` (or a date in the
 * past) on every request. API.md: asked again "at most three times"; when it still answers 429,
 * the detail must not claim the wait was "past this request's time budget" (it was 0 s, well
 * inside a 10 s budget: the retry cap ended it).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { fetchPage } from '../../../src/engine/fetch/page.js';

describe('retry-after: Retry-After 0 / in the past, forever', () => {
  let server: Server;
  let hits = 0;
  let http: HttpClient;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      res
        .writeHead(429, {
          'content-type': 'text/plain',
          'retry-after': req.url === '/past' ? 'Thu, 01 Jan 1970 00:00:00 GMT' : '0',
        })
        .end('slow down');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    http = new HttpClient({ allowPrivateNetwork: true });
  });
  afterAll(async () => {
    await http?.close();
    await new Promise((r) => server?.close(r));
  });

  for (const path of ['/zero', '/past']) {
    it(`${path}: asked again three times, a second apart, and the detail does not blame the time budget`, async () => {
      hits = 0;
      const port = (server.address() as AddressInfo).port;
      const started = Date.now();
      const e = (await fetchPage({ http }, `http://127.0.0.1:${port}${path}`, {
        render: 'http',
        timeoutMs: 10_000,
      }).catch((x: unknown) => x)) as { code: string; detail: string };
      expect(e.code).toBe('fetch_failed');
      expect(hits).toBe(4);
      // "Now" still waits a second between tries (a lower bound: a loaded machine is only slower).
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
      expect(e.detail).not.toMatch(/past this request's time budget/);
      expect(e.detail).toMatch(/after 4 tries/);
    });
  }
});
