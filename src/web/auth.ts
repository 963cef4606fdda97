/**
 * The dashboard's sign-up, log-in and log-out: forms without a session (their CSRF guard is the
 * request's Origin/Referer), failed log-ins throttled per address, sign-ups limited per address,
 * answers that never tell whether an address has an account.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app/context.js';
import { accounts, hashPassword, needsRehash, sessions, verifyPassword } from '../store/index.js';
import { html, page, raw } from './html.js';
import { form, send } from './kit.js';
import { clientKey, LoginThrottle } from './login-throttle.js';
import {
  clearSessionCookie,
  cookieOf,
  COOKIE,
  csrfOk,
  currentSession,
  fromThisSite,
  safeNext,
  setSessionCookie,
} from './session.js';

const LOGIN_PER_MINUTE = 10;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,}$/;

/** Sign-ups per address and minute: a token bucket in this process (the server hands its own kind). */
export interface SignupLimiter {
  take(key: string, perMinute: number): { allowed: boolean; retryAfter: number };
}

export function authPages(app: FastifyInstance, ctx: AppContext, loginLimiter: SignupLimiter): void {
  // 10 tries, then one every 30 s per address (2,880 a day): slow for guessing, short for a typo-prone person.
  const loginThrottle = new LoginThrottle(LOGIN_PER_MINUTE, 2);
  let dummy: Promise<string> | undefined;
  const dummyHash = () => (dummy ??= hashPassword(randomBytes(16).toString('base64')));

  // --- Sign up, log in, log out -------------------------------------------------------------
  const authForm = (kind: 'login' | 'signup', error?: string, email = '', next = '/', info?: string) =>
    page({
      title: kind === 'login' ? 'Log in' : 'Create an account',
      notice: error ? { kind: 'error', text: error } : info ? { kind: 'ok', text: info } : undefined,
      body: html`<div class="auth"><form class="stack" method="post" action="/${kind}">
<input type="hidden" name="next" value="${next}">
<label for="email">Email<input id="email" name="email" type="email" autocomplete="email" required value="${email}"></label>
<label for="password">Password<input id="password" name="password" type="password" autocomplete="${kind === 'login' ? 'current-password' : 'new-password'}" minlength="${kind === 'signup' ? 8 : 1}" required></label>
<button type="submit">${kind === 'login' ? 'Log in' : 'Create account'}</button></form>
<p class="muted">${kind === 'login' ? raw('No account yet? <a href="/signup">Create one</a>.') : raw('Already have an account? <a href="/login">Log in</a>.')}</p></div>`,
    });
  // Login CSRF: no session yet, so no token; another site's POST is refused by its Origin/Referer.
  const crossSite = (request: FastifyRequest, reply: FastifyReply, kind: 'login' | 'signup') =>
    fromThisSite(request)
      ? undefined
      : send(reply, 403, authForm(kind, 'This form was sent from another site. Open this page and try again.'));

  const SIGNED_UP = 'If this address can be used, your account is ready: log in with it and your password.';
  app.get<{ Querystring: { next?: string; signed_up?: string } }>(
    '/login',
    { schema: { hide: true } },
    async (request, reply) =>
      send(
        reply,
        200,
        authForm(
          'login',
          undefined,
          '',
          safeNext(request.query.next),
          request.query.signed_up === '1' ? SIGNED_UP : undefined,
        ),
      ),
  );
  app.get('/signup', { schema: { hide: true } }, async (_request, reply) => send(reply, 200, authForm('signup')));

  const startSession = async (request: FastifyRequest, reply: FastifyReply, accountId: string, next: unknown) => {
    const s = await sessions.createSession(ctx.store.db, accountId);
    setSessionCookie(request, reply, s.token, sessions.SESSION_DAYS * 86_400);
    return reply.redirect(safeNext(next), 303);
  };

  app.post('/login', { schema: { hide: true } }, async (request, reply) => {
    const refused = crossSite(request, reply, 'login');
    if (refused) return refused;
    const f = form(request);
    const email = String(f.email ?? '')
      .trim()
      .toLowerCase();
    // Failures slow the sending address only: a per-account limit would let anyone lock the owner out.
    const client = clientKey(request.ip);
    const wait = loginThrottle.take(client);
    if (wait)
      return send(
        reply.header('retry-after', String(wait)),
        429,
        authForm(
          'login',
          `Too many failed attempts from your network. Try again in ${wait} seconds.`,
          email,
          safeNext(f.next),
        ),
      );
    const account = email ? await accounts.findAccountByEmail(ctx.store.db, email) : undefined;
    // The hash is checked even for an unknown address (a real one, at today's cost), so the answer takes as long either way.
    const password = String(f.password ?? '');
    const ok = await verifyPassword(password, account?.password_hash ?? (await dummyHash()));
    if (!account || !ok)
      return send(reply, 401, authForm('login', 'Email or password is wrong.', email, safeNext(f.next)));
    loginThrottle.refund(client);
    // Hashes from before the cost was raised are upgraded now that the password is known.
    if (needsRehash(account.password_hash))
      await accounts.setPasswordHash(ctx.store.db, account.id, await hashPassword(password));
    return startSession(request, reply, account.id, f.next);
  });

  app.post('/signup', { schema: { hide: true } }, async (request, reply) => {
    const refused = crossSite(request, reply, 'signup');
    if (refused) return refused;
    const f = form(request);
    const email = String(f.email ?? '')
      .trim()
      .toLowerCase();
    const password = String(f.password ?? '');
    const limited = loginLimiter.take(`signup:${clientKey(request.ip)}`, LOGIN_PER_MINUTE);
    if (!limited.allowed)
      return send(
        reply.header('retry-after', String(limited.retryAfter)),
        429,
        authForm('signup', `Too many attempts. Try again in ${limited.retryAfter} seconds.`, email),
      );
    if (!EMAIL.test(email))
      return send(reply, 400, authForm('signup', 'Enter an email address such as you@example.com.', email));
    if (password.length < 8 || password.length > 200)
      return send(reply, 400, authForm('signup', 'Choose a password of 8 to 200 characters.', email));
    // Whether the email is new or taken, the answer is the same (no session, the same redirect)
    // and takes as long (a taken one still costs a hash): sign-up must not tell who has an account.
    if (await accounts.findAccountByEmail(ctx.store.db, email)) await hashPassword(password);
    else {
      try {
        await accounts.createAccount(ctx.store.db, { email, password, credits: ctx.config.signupCredits });
      } catch (err) {
        // Taken meanwhile by a parallel sign-up: the same answer; anything else is a real error.
        if (!(await accounts.findAccountByEmail(ctx.store.db, email))) throw err;
      }
    }
    return reply.redirect('/login?signed_up=1', 303);
  });

  app.post('/logout', { schema: { hide: true } }, async (request, reply) => {
    const s = await currentSession(ctx.store, request);
    if (s && csrfOk(request, s.csrf)) await sessions.endSession(ctx.store.db, s.token);
    else if (cookieOf(request, COOKIE) && !s) clearSessionCookie(request, reply);
    if (s && !csrfOk(request, s.csrf))
      return send(
        reply,
        403,
        page({ title: 'Form expired', body: html`<p><a href="/">Go back</a> and try again.</p>` }),
      );
    clearSessionCookie(request, reply);
    return reply.redirect('/login', 303);
  });
}
