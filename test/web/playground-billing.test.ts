/**
 * The dashboard's credit gate is /v1's (issue 41: app/billing.ts's `chargedWork`): an answer over
 * TRAWL_ANSWER_MAX_MB is refused and costs nothing, saying so; a request whose tab went away is
 * given back — also when the work finished anyway, after the tab closed.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargedWork } from '../../src/app/billing.js';
import type { AppContext } from '../../src/app/context.js';
import { TrawlError } from '../../src/errors.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';

/** An article of about `kb` KB of text. */
const bigPage = (kb: number) =>
  `<html><head><title>Big</title></head><body><article><h1>Big</h1>${Array.from(
    { length: kb },
    (_, i) => `<p>Paragraph ${i}: ${'plain words of a long page '.repeat(36)}</p>`,
  ).join('')}</article></body></html>`;

const ARTICLE =
  '<html><head><title>Lamp</title></head><body><article><h1>Lamp</h1><p>A brass lamp for the desk, with warm light for reading late at night.</p></article></body></html>';

const until = async (ok: () => Promise<boolean>) => {
  for (let i = 0; i < 100 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 100));
};

describe.each(DIALECTS)('the dashboard credit gate (%s)', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  let cookie = '';
  let csrf = '';
  let accountId = '';
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  beforeAll(async () => {
    site = await startFixtureServer({
      '/big': bigPage(700),
      '/lamp': ARTICLE,
      '/slow': async (_q, res) => {
        await new Promise((r) => setTimeout(r, 3000));
        res.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE);
      },
    });
    svc = await startTestService(dialect, { TRAWL_ANSWER_MAX_MB: '1' });
    const email = 'gate@example.com';
    const creds = `email=${encodeURIComponent(email)}&password=longenough1`;
    await fetch(`${svc.url}/signup`, { method: 'POST', redirect: 'manual', headers: form, body: creds });
    const login = await fetch(`${svc.url}/login`, { method: 'POST', redirect: 'manual', headers: form, body: creds });
    cookie = login.headers.get('set-cookie')!.split(';')[0];
    accountId = (
      await svc.store.db.selectFrom('accounts').select(['id']).where('email', '=', email).executeTakeFirstOrThrow()
    ).id;
    csrf = /name="csrf" value="([^"]+)"/.exec(
      await (await fetch(`${svc.url}/playground`, { headers: { cookie } })).text(),
    )![1];
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  const scrape = (path: string, formats: string[]) =>
    fetch(`${svc.url}/playground`, {
      method: 'POST',
      headers: { ...form, cookie, origin: svc.url },
      body: new URLSearchParams([
        ['csrf', csrf],
        ['url', `${site.url}${path}`],
        ['render', 'http'],
        ...formats.map((f) => ['formats', f]),
      ]).toString(),
    });

  it('an answer over the cap is 413, costs nothing and says so', async () => {
    const before = await svc.credits(accountId);
    const res = await scrape('/big', ['markdown', 'links']);
    const page = await res.text();
    expect(res.status).toBe(413);
    expect(page).toMatch(/payload_too_large: answer: more than 1\.\d MiB, over the 1 MiB one answer may hold/);
    expect(page).toContain('nothing charged');
    expect(await svc.credits(accountId)).toBe(before);
    // Its usage row says what it kept: nothing.
    const row = await svc.store.db
      .selectFrom('usage')
      .select(['status', 'credits'])
      .where('account_id', '=', accountId)
      .where('status', '=', 413)
      .executeTakeFirstOrThrow();
    expect(Number(row.credits)).toBe(0);
    // A page that fits is charged as before.
    const fits = await scrape('/lamp', ['markdown']);
    expect(fits.status).toBe(200);
    expect(await fits.text()).toContain('Cost: 1 credit');
    expect(await svc.credits(accountId)).toBe(before - 1);
  }, 60_000);

  it('a request whose tab closed is given back', async () => {
    const before = await svc.credits(accountId);
    // A connection of its own, closed as a tab closes it.
    const body = new URLSearchParams([
      ['csrf', csrf],
      ['url', `${site.url}/slow`],
      ['render', 'http'],
    ]).toString();
    const req = request(`${svc.url}/playground`, {
      method: 'POST',
      agent: false,
      headers: { ...form, cookie, origin: svc.url, 'content-length': Buffer.byteLength(body) },
    });
    req.on('error', () => undefined);
    req.end(body);
    await until(async () => site.hits('/slow') > 0);
    expect(await svc.credits(accountId)).toBe(before - 1); // reserved while the work runs
    req.destroy();
    await until(async () => (await svc.credits(accountId)) === before);
    expect(await svc.credits(accountId)).toBe(before);
  }, 30_000);

  it('work that ends after its asker went away is given back, not charged', async () => {
    const ctx = { config: svc.config, store: svc.store, engine: svc.engine } as AppContext;
    const before = await svc.credits(accountId);
    const gone = new AbortController();
    const closed = new TrawlError('fetch_failed', 'the browser tab closed the connection');
    const err = await chargedWork(
      ctx,
      accountId,
      async () => {
        gone.abort(closed); // the work does not look at its signal, and ends with an answer
        return { ok: true };
      },
      gone.signal,
    ).catch((e: unknown) => e);
    expect(err).toBe(closed);
    expect(await svc.credits(accountId)).toBe(before);
    // Not gone, the same work is charged.
    const kept = await chargedWork(ctx, accountId, async () => ({ ok: true }), new AbortController().signal);
    expect(kept).toEqual({ value: { ok: true }, credits: 1 });
    expect(await svc.credits(accountId)).toBe(before - 1);
  });
});
