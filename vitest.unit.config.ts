/**
 * `npm run test:unit`: the tests that need no PostgreSQL, Redis or Chromium and start no service
 * or `trawl` process — the engine, contract, extraction and helpers, in under two minutes. A test
 * file is an integration test (left to `npm test`) when it imports what reaches outside the
 * process: the test service or the CLI (test/helpers/service.ts, trawl-process.ts,
 * job-client.ts), the runtime, Chromium (playwright-core, findChromium), Redis (ioredis,
 * bullmq), PostgreSQL (pg, createTestDatabase) or child processes. Everything else is a unit.
 * (The script builds first: the document pool's tests run the compiled worker in dist/.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

const REACHES_OUT =
  /helpers\/(?:service|trawl-process|job-client)\.js|playwright-core|findChromium|ioredis|bullmq|from 'pg'|createTestDatabase|startService|runtime\.js|bin\/trawl|child_process/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
}

export const unitFiles = testFiles('test').filter((f) => !REACHES_OUT.test(readFileSync(f, 'utf8')));

export default defineConfig({
  test: { ...base.test, include: unitFiles },
});
