/**
 * Browser actions in the Chromium pool, where their bounds are decided: a step cut short by the
 * request's budget is a timeout, one that cannot be done is action_failed; scrolling to the bottom
 * of a growing list, a click that navigates waits for the new page, and a render waits for a
 * script that is still busy before it reads the page.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumPool, findChromium } from '../../../src/engine/fetch/browser.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import type { Action } from '../../../src/engine/fetch/actions.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

const chromium = findChromium();

describe.skipIf(!chromium)('browser actions: bounds and waits', () => {
  let site: FixtureServer;
  let http: HttpClient;
  let pool: ChromiumPool;

  beforeAll(async () => {
    site = await startFixtureServer({
      '/list': `<html><head><title>List</title></head><body><ul id="list"></ul><script>
        const list = document.getElementById('list');
        const add = (n) => { for (let i = 0; i < n; i++) { const li = document.createElement('li'); li.style.height = '100px'; li.textContent = 'item ' + list.children.length; list.append(li); } };
        add(20);
        addEventListener('scroll', () => { if (innerHeight + scrollY >= document.documentElement.scrollHeight - 10 && list.children.length < 80) setTimeout(() => add(20), 50); });
      </script></body></html>`,
      '/nav': `<html><head><title>Start</title></head><body><a id="next" href="/second">next</a><input id="f" onfocus="this.dataset.f = 1"><button class="ghost" hidden>x</button></body></html>`,
      '/second': async (_q, res) => {
        await new Promise((r) => setTimeout(r, 200));
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<html><head><title>Second</title></head><body><p id="arrived">The second page, which took its time.</p></body></html>',
          );
      },
      // A bundle that keeps the page busy for 400 ms before it fetches what it draws: no request is in flight meanwhile.
      '/busy': `<html><head><title>Busy</title></head><body><div id="root"></div><script>
        const until = Date.now() + 400; while (Date.now() < until) {}
        fetch('/data').then((r) => r.text()).then((t) => { document.getElementById('root').textContent = t; });
      </script></body></html>`,
      '/data': (_q, res) =>
        void res.writeHead(200, { 'content-type': 'text/plain' }).end('drawn after the busy bundle'),
    });
    http = new HttpClient({ allowPrivateNetwork: true });
    pool = new ChromiumPool({ http });
  }, 30_000);
  afterAll(async () => {
    await pool?.close();
    await http?.close();
    await site?.close();
  });

  const render = (path: string, actions: Action[], timeoutMs = 20_000) =>
    pool.render(`${site.url}${path}`, { timeoutMs, actions });

  it('scrolls to the bottom again while the list grows', async () => {
    const r = await render('/list', [
      { type: 'scroll', direction: 'down', amount: 'bottom' },
      { type: 'execute_javascript', script: 'return document.querySelectorAll("li").length' },
    ]);
    expect(r.actions!.javascriptReturns[0]).toBe(80);
  }, 30_000);

  it('a click that navigates waits for the new page; write types into the focused element', async () => {
    const r = await render('/nav', [
      { type: 'click', selector: '#f' },
      { type: 'write', text: 'typed' },
      {
        type: 'execute_javascript',
        script: 'return [document.getElementById("f").value, document.getElementById("f").dataset.f]',
      },
      { type: 'click', selector: '#next' },
      { type: 'scrape' },
    ]);
    expect(r.actions!.javascriptReturns[0]).toEqual(['typed', '1']);
    expect(r.actions!.scrapes[0].url).toBe(`${site.url}/second`);
    expect(r.actions!.scrapes[0].html).toContain('The second page, which took its time.');
    expect(r.url).toBe(`${site.url}/second`);
  }, 30_000);

  it('a step that cannot be done is action_failed; one the budget cuts short is a timeout', async () => {
    await expect(render('/nav', [{ type: 'click', selector: '.ghost', all: true }])).rejects.toMatchObject({
      code: 'action_failed',
      detail: "actions[0]: none of the 1 elements matching '.ghost' could be clicked within 5000 ms",
    });
    await expect(render('/nav', [{ type: 'wait', selector: '#never' }], 2000)).rejects.toMatchObject({
      code: 'timeout',
      detail: expect.stringMatching(/^actions\[0\]: the request's time budget \(timeout_ms 2000\) ran out/),
    });
    // Said at once: a wait that cannot end within the budget is not waited out. The budget (10 min)
    // is far past this test's own timeout, so waiting it out fails the test instead of passing late.
    await expect(render('/nav', [{ type: 'wait', milliseconds: 900_000 }], 600_000)).rejects.toMatchObject({
      code: 'timeout',
      detail: expect.stringMatching(/^actions\[0\]: the request's time budget \(timeout_ms 600000\) ran out/),
    });
    await expect(
      render('/nav', [{ type: 'execute_javascript', script: 'await new Promise(() => {})' }], 2500),
    ).rejects.toMatchObject({ code: 'timeout' });
    await expect(render('/nav', [{ type: 'click', selector: 'div[' }])).rejects.toMatchObject({
      code: 'action_failed',
      detail: expect.stringMatching(/^actions\[0\]: 'div\[' is not a selector the browser can use/),
    });
    await expect(render('/nav', [{ type: 'execute_javascript', script: 'return window' }])).rejects.toMatchObject({
      code: 'action_failed',
      detail: expect.stringMatching(/^actions\[0\]: the script's return value is not JSON-serialisable/),
    });
  }, 60_000);

  it('Chromium killed during a step is a 502 fetch_failed (not an internal error), and the next render works', async () => {
    await render('/nav', []);
    const r = render('/nav', [{ type: 'wait', milliseconds: 5000 }]).catch((e: unknown) => e);
    await new Promise((res) => setTimeout(res, 1500));
    // The browser this pool launched: a child of this process (never another one's Chromium).
    const pids = execFileSync('pgrep', ['-P', String(process.pid), 'chromium'])
      .toString()
      .trim()
      .split('\n');
    for (const pid of pids) process.kill(Number(pid), 'SIGKILL');
    const e = (await r) as { code?: string; detail?: string };
    expect(e.code, String(e)).toBe('fetch_failed');
    expect(e.detail).toMatch(/Chromium/);
    const again = await render('/nav', [{ type: 'click', selector: '#f' }]);
    expect(again.html).toContain('id="next"');
  }, 30_000);

  it('without wait_for, a page is read once its scripts are idle and nothing is in flight', async () => {
    const r = await pool.render(`${site.url}/busy`, { timeoutMs: 20_000 });
    expect(r.html).toContain('drawn after the busy bundle');
  }, 30_000);
});
