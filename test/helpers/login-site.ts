/**
 * A local site behind a login (issue 44's tests): a form with a CSRF token bound to a pre-login
 * cookie, a session cookie that expires after `ttl` seconds of the site's own clock (which the test
 * moves) and that rotates on every visit (so a client that does not keep what the site sets is
 * logged out), a redirect to /login when it has expired, and a second site ("other") that records
 * every Cookie header it receives. Both answer on one port; TRAWL_RESOLVE maps the names.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

export interface LoginSite {
  server: FixtureServer;
  /** The site's clock in seconds; the test moves it. */
  clock: { now: number };
  /** Every sid the site has issued (the test looks for them in answers, logs and the database). */
  issued: string[];
  /** Cookie headers received by the other site, per path. */
  otherCookies: { path: string; cookie: string | undefined }[];
  /** Cookie headers received by the login site, per path. */
  siteCookies: { path: string; cookie: string | undefined }[];
  logins: number;
  close(): Promise<void>;
}

const cookiesOf = (req: IncomingMessage): Record<string, string> =>
  Object.fromEntries(
    (req.headers.cookie ?? '')
      .split(';')
      .map((p) => p.trim().split('='))
      .filter((p) => p.length === 2),
  );

const html = (res: ServerResponse, body: string, headers: Record<string, string | string[]> = {}) =>
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);

export async function startLoginSite(opts: {
  user: string;
  password: string;
  ttl: number;
  host: string;
  other: string;
}) {
  const clock = { now: 1_000 };
  const issued: string[] = [];
  const otherCookies: LoginSite['otherCookies'] = [];
  const siteCookies: LoginSite['siteCookies'] = [];
  const csrfOf = new Map<string, string>();
  const sessions = new Map<string, number>();
  const site: Partial<LoginSite> = { clock, issued, otherCookies, siteCookies, logins: 0 };
  const isOther = (req: IncomingMessage) => (req.headers.host ?? '').startsWith(opts.other);
  const newSid = (loginAt: number) => {
    const sid = `sid-${randomBytes(9).toString('hex')}`;
    issued.push(sid);
    sessions.set(sid, loginAt);
    return sid;
  };
  const record = (req: IncomingMessage) => {
    const entry = { path: (req.url ?? '').split('?')[0]!, cookie: req.headers.cookie };
    (isOther(req) ? otherCookies : siteCookies).push(entry);
  };
  const server = await startFixtureServer({
    '/login': (req, res) => {
      record(req);
      if (req.method === 'POST') {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          const form = new URLSearchParams(body);
          const pre = cookiesOf(req).pre;
          if (
            !pre ||
            csrfOf.get(pre) !== form.get('csrf') ||
            form.get('user') !== opts.user ||
            form.get('password') !== opts.password
          )
            return html(res, '<h1>Wrong</h1><form method=post><input type=password name=password></form>');
          site.logins!++;
          res
            .writeHead(302, { location: '/account', 'set-cookie': `sid=${newSid(clock.now)}; Path=/; HttpOnly` })
            .end();
        });
        return;
      }
      const pre = randomBytes(6).toString('hex');
      const csrf = randomBytes(8).toString('hex');
      csrfOf.set(pre, csrf);
      html(
        res,
        `<html><head><title>Log in</title></head><body><h1>Log in</h1><form method="post" action="/login">
<input type="hidden" name="csrf" value="${csrf}"><input id="user" name="user"><input id="password" type="password" name="password">
<button type="submit">Log in</button></form></body></html>`,
        { 'set-cookie': `pre=${pre}; Path=/; HttpOnly` },
      );
    },
    '/account': (req, res) => {
      record(req);
      const sid = cookiesOf(req).sid;
      const loginAt = sid === undefined ? undefined : sessions.get(sid);
      if (loginAt === undefined || clock.now - loginAt >= opts.ttl)
        return void res.writeHead(302, { location: '/login?next=/account' }).end();
      // Rolling: the old sid stops working, the new one carries the same login time.
      sessions.delete(sid!);
      html(
        res,
        `<html><head><title>Account</title></head><body><main><h1>Your account</h1>
<p id="orders">Orders of ${opts.user}: 3 open, the kettle ships on Monday. Price 42.</p>
<img src="http://${opts.other}/pixel.png"><script>fetch('http://${opts.other}/api').catch(() => {})</script>
</main></body></html>`,
        { 'set-cookie': `sid=${newSid(loginAt)}; Path=/; HttpOnly` },
      );
    },
    '/away': (req, res) => {
      record(req);
      res.writeHead(302, { location: `http://${opts.other}/landing` }).end();
    },
    '/landing': (req, res) => {
      record(req);
      html(
        res,
        '<html><head><title>Landing</title></head><body><article><h1>Landing</h1><p>Another site altogether, with words enough to read.</p></article></body></html>',
      );
    },
    '/pixel.png': (req, res) => {
      record(req);
      res.writeHead(200, { 'content-type': 'image/png' }).end();
    },
    '/api': (req, res) => {
      record(req);
      res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' }).end('{}');
    },
  });
  return Object.assign(site, { server, close: () => server.close() }) as LoginSite;
}
