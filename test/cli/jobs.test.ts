/**
 * The CLI's jobs: `trawl crawl URL --async` starts a crawl job on a Trawl server (TRAWL_API_URL,
 * TRAWL_API_KEY), follows its progress and prints the ended job; `trawl jobs get ID` prints its
 * pages as JSON lines; without a server configured the error says what to set.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../../bin/trawl.js');

async function trawl(args: string[], env: Record<string, string>) {
  try {
    const r = await run(process.execPath, [BIN, '--json', ...args], {
      env: { ...process.env, TRAWL_API_URL: '', TRAWL_API_KEY: '', ...env },
    });
    return { code: 0, stdout: r.stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string };
    return { code: err.code, stdout: err.stdout };
  }
}

describe('trawl crawl --async and trawl jobs get', () => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer();
    site.route(
      '/',
      articlePage(
        'Home',
        `<p>A home page with links to four pages of its own.</p>${[0, 1, 2, 3].map((i) => `<a href="/n/${i}">N${i}</a>`).join(' ')}`,
      ),
    );
    for (let i = 0; i < 4; i++)
      site.route(`/n/${i}`, articlePage(`N${i}`, `<p>Page ${i}, a small page with words enough to be content.</p>`));
    svc = await startTestService('sqlite');
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('starts the job, waits for it, and reads its pages back as JSON lines', async () => {
    const { key } = await svc.newKey(5);
    const env = { TRAWL_API_URL: svc.url, TRAWL_API_KEY: key };
    const started = await trawl(
      ['crawl', `${site.url}/`, '--async', '--limit', '50', '--max-depth', '1', '--no-sitemap'],
      env,
    );
    expect(started.code).toBe(0);
    const { job } = JSON.parse(started.stdout.trim());
    expect(job).toMatchObject({ kind: 'crawl', state: 'completed', progress: { done: 5, failed: 0, queued: 0 } });
    const got = await trawl(['jobs', 'get', job.job_id], env);
    const lines = got.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((p) => new URL(p.url).pathname).sort()).toEqual(['/', '/n/0', '/n/1', '/n/2', '/n/3']);
    const noWait = JSON.parse((await trawl(['crawl', `${site.url}/`, '--async', '--no-wait'], env)).stdout.trim());
    expect(noWait.job.job_id).toMatch(/^job_/);
  });

  it('names what to set when no server is configured, and passes the server errors on', async () => {
    const none = await trawl(['jobs', 'get', 'job_x'], {});
    expect(none.code).toBe(1);
    expect(JSON.parse(none.stdout.trim())).toMatchObject({
      error: 'invalid_request',
      detail: expect.stringContaining('TRAWL_API_URL'),
    });
    const { key } = await svc.newKey(5);
    const missing = await trawl(['jobs', 'get', 'job_00000000000000000000'], {
      TRAWL_API_URL: svc.url,
      TRAWL_API_KEY: key,
    });
    expect(JSON.parse(missing.stdout.trim())).toMatchObject({ error: 'not_found' });
  });

  it('a job setting out of bounds stops `trawl serve` with an error naming it, not a stack trace', async () => {
    for (const [name, value, range] of [
      ['TRAWL_JOB_RETENTION_HOURS', '0', '1 to 87600'],
      ['TRAWL_ACCOUNT_CONCURRENCY', 'many', '1 to 10000'],
    ]) {
      const r = await trawl(['serve'], { [name]: value, PORT: '0', TRAWL_DATA_DIR: svc.config.dataDir });
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout.trim())).toEqual({
        error: 'invalid_request',
        detail: `${name}: must be an integer from ${range} (got "${value}")`,
      });
    }
  });
});
