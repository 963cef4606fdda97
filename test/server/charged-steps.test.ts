/**
 * What leaves the service is paid for (issue 39), after the caller's steps: a render whose steps
 * all ran, then failed while the page was read or photographed (a script left the page's main
 * thread busy, a navigation it started was refused, the budget ran out), had sent the page
 * wherever the steps sent it, and must keep its credit as a failing step does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const chromium = findChromium();
const SECRET = 'Paid-for paragraph 5d1b.';

describe.skipIf(!chromium)('a render that ran the caller steps and failed after them', () => {
  let site: FixtureServer;
  let svc: TestService;
  const sunk: string[] = [];

  beforeAll(async () => {
    site = await startFixtureServer({
      '/page': `<!doctype html><html><head><title>Paid</title></head><body><main><h1>Paid</h1><p>${SECRET}</p></main></body></html>`,
      '/sink': (req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          sunk.push(body);
          res.writeHead(204, { 'access-control-allow-origin': '*' }).end();
        });
      },
    });
    svc = await startTestService('sqlite');
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('a script that sends the page away and then blocks the page is charged (504 after the steps)', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post(
      '/v1/scrape',
      {
        url: `${site.url}/page`,
        timeout_ms: 4000,
        actions: [
          {
            type: 'execute_javascript',
            script: `await fetch("${site.url}/sink", { method: "POST", body: document.documentElement.outerHTML }); setTimeout(() => { for (;;) {} }, 20)`,
          },
          { type: 'wait', milliseconds: 200 },
        ],
      },
      key,
    );
    expect(sunk.join('')).toContain(SECRET);
    expect(res.status).not.toBe(200);
    // The page left through the caller's steps: the failure is charged.
    expect(await svc.credits(accountId)).toBe(4);
  }, 60_000);
});
