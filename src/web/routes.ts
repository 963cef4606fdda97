/**
 * The dashboard, served by the API process at `/`: server-rendered pages (no build step, no
 * client framework; a small script adds copy buttons and the uPlot chart). Its routes use the
 * session cookie, never an API key, and call the same store functions as `/v1`.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createRequire } from 'node:module';
import type { AppContext } from '../app/context.js';
import { isTrawlError } from '../errors.js';
import { accounts, hashPassword, keys, sessions, usage, verifyPassword } from '../store/index.js';
import { html, page, raw, type Raw } from './html.js';
import { authPages, type SignupLimiter } from './auth.js';
import { form, send, when, type Kit } from './kit.js';
import { jobPages } from './jobs.js';
import { monitorPages } from './monitors.js';
import { channelPages } from './channels.js';
import { playgroundPage } from './playground.js';
import { playgroundTabs } from './playground-tabs.js';
import { csrfOk, currentSession, type SessionInfo } from './session.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const UPLOT = dirname(require.resolve('uplot/dist/uPlot.iife.min.js'));
// A Map, not an object literal: `/assets/constructor` must not find Object.prototype's members.
const ASSETS = new Map<string, { file: string; type: string }>(
  Object.entries({
    'app.css': { file: join(ROOT, 'web/static/app.css'), type: 'text/css; charset=utf-8' },
    'app.js': { file: join(ROOT, 'web/static/app.js'), type: 'text/javascript; charset=utf-8' },
    'uPlot.iife.min.js': { file: join(UPLOT, 'uPlot.iife.min.js'), type: 'text/javascript; charset=utf-8' },
    'uPlot.min.css': { file: join(UPLOT, 'uPlot.min.css'), type: 'text/css; charset=utf-8' },
    'favicon.svg': { file: join(ROOT, 'web/static/favicon.svg'), type: 'image/svg+xml' },
  }),
);
/** What browsers ask for on every page (and what pages link): the same small SVG. */
const FAVICON = join(ROOT, 'web/static/favicon.svg');

export function dashboardRoutes(app: FastifyInstance, ctx: AppContext, loginLimiter: SignupLimiter): void {
  // The dashboard's forms are urlencoded and nothing else: JSON, text, multipart or binary bodies
  // are 415 (this scope only; /v1 keeps its JSON parser).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_req, body, done) => {
      // A name given more than once (checkboxes) becomes a list.
      const out: Record<string, string | string[]> = {};
      for (const [k, v] of new URLSearchParams(body as string)) {
        const prev = out[k];
        out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
      }
      done(null, out);
    },
  );
  app.setErrorHandler((error, request, reply) => {
    if (isTrawlError(error) && error.status < 500) {
      return send(
        reply,
        error.status,
        page({
          title: error.status === 404 ? 'Not found' : 'Not possible',
          body: html`<p>${error.detail}</p><p><a href="/">Back to the overview</a></p>`,
        }),
      );
    }
    // Fastify's own client errors (415 body type, 413 too large, 400 bad encoding) keep their status.
    const status = (error as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500) {
      const text =
        status === 415
          ? 'Send this form as application/x-www-form-urlencoded, as the page does.'
          : status === 413
            ? 'The form is too large.'
            : 'The request could not be read.';
      return send(
        reply,
        status,
        page({ title: 'Not possible', body: html`<p>${text}</p><p><a href="/">Back to the overview</a></p>` }),
      );
    }
    request.log.error({ err: error, requestId: request.id }, 'dashboard error');
    return send(
      reply,
      500,
      page({
        title: 'Something went wrong',
        body: html`<p>The page could not be shown. Request id: <code>${request.id}</code>.</p><p><a href="/">Back to the overview</a></p>`,
      }),
    );
  });
  const assetCache = new Map<string, { plain: Buffer; gzip: Buffer }>();

  // Browsers ask every page's /favicon.ico: answer the icon, not a 404 (issue 43). An SVG sent
  // as image/svg+xml is read by browsers whatever the path's extension.
  let favicon: Buffer | undefined;
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('content-type', 'image/svg+xml')
      .header('cache-control', 'public, max-age=86400')
      .send((favicon ??= readFileSync(FAVICON))),
  );
  app.get<{ Params: { name: string } }>('/assets/:name', { schema: { hide: true } }, async (request, reply) => {
    const a = ASSETS.get(request.params.name);
    if (!a) return reply.code(404).header('content-type', 'text/plain').send('not found');
    // Compressed once, on first use; sent compressed to every browser that says it can read gzip.
    let cached = assetCache.get(a.file);
    if (!cached) {
      const plain = readFileSync(a.file);
      assetCache.set(a.file, (cached = { plain, gzip: gzipSync(plain, { level: 9 }) }));
    }
    reply
      .header('content-type', a.type)
      .header('cache-control', 'public, max-age=3600')
      .header('vary', 'accept-encoding');
    if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')))
      return reply.header('content-encoding', 'gzip').send(cached.gzip);
    return reply.send(cached.plain);
  });

  /** Pages behind a session: the handler gets it; without one the browser goes to /login. */
  const authed =
    (handler: (request: FastifyRequest, reply: FastifyReply, s: SessionInfo) => Promise<unknown>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const s = await currentSession(ctx.store, request);
      if (!s) return reply.redirect(`/login?next=${encodeURIComponent(request.url)}`, 303);
      if (request.method === 'POST' && !csrfOk(request, s.csrf)) {
        return send(
          reply,
          403,
          page({
            title: 'Form expired',
            email: s.account.email,
            csrf: s.csrf,
            body: html`<p>This form could not be accepted (its security token is missing or from another page). <a href="${request.url}">Reload the page</a> and try again.</p>`,
          }),
        );
      }
      return handler(request, reply, s);
    };
  const shell = (
    s: SessionInfo,
    path: string,
    title: string,
    body: Raw,
    notice?: { kind: 'ok' | 'error'; text: string },
  ) => page({ title, path, email: s.account.email, csrf: s.csrf, body, notice });
  const csrfField = (s: SessionInfo) => html`<input type="hidden" name="csrf" value="${s.csrf}">`;

  authPages(app, ctx, loginLimiter);

  // --- Overview -----------------------------------------------------------------------------
  app.get(
    '/',
    { schema: { hide: true } },
    authed(async (_request, reply, s) => {
      const db = ctx.store.db;
      const [days, errors, latest] = await Promise.all([
        usage.dailyUsage(db, s.account.id, 14),
        usage.errorsByStatus(db, s.account.id, 14),
        usage.listUsage(db, s.account.id, 20),
      ]);
      const total = days.reduce((a, d) => a + d.requests, 0);
      const spent = days.reduce((a, d) => a + d.credits, 0);
      const chart = JSON.stringify({
        title: 'Requests and credits per day (UTC)',
        axis: 'count',
        counts: true,
        days: days.map((d) => d.day),
        series: [
          { label: 'requests', values: days.map((d) => d.requests) },
          { label: 'credits', values: days.map((d) => d.credits) },
        ],
      });
      const body = html`<section class="cards" aria-label="Summary">
<div class="card"><div class="muted">Credits left</div><div class="big" data-testid="credits">${Number(s.account.credits)}</div></div>
<div class="card"><div class="muted">Requests, last 14 days</div><div class="big">${total}</div></div>
<div class="card"><div class="muted">Credits used, last 14 days</div><div class="big">${spent}</div></div></section>
<h2>Usage</h2><div id="chart" class="chart" role="img" aria-label="Requests and credits per day over the last 14 days">Loading chart…</div>
<script type="application/json" data-chart-for="chart">${raw(chart.replace(/</g, '\\u003c'))}</script>
<h2>Errors by status</h2>${errors.length ? html`<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">Status</th><th scope="col">Requests</th></tr></thead><tbody>${errors.map((e) => html`<tr><td>${e.status}</td><td>${Number(e.n)}</td></tr>`)}</tbody></table></div>` : html`<p class="empty">No failed requests in the last 14 days.</p>`}
<h2>Latest requests</h2>${latest.length ? html`<div class="table-wrap" tabindex="0"><table aria-label="Latest requests"><thead><tr><th scope="col">When</th><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">Credits</th><th scope="col">Duration</th><th scope="col">Request id</th></tr></thead><tbody>${latest.map((u) => html`<tr><td>${when(u.created_at)}</td><td>${u.endpoint}</td><td>${u.status}</td><td>${u.credits}</td><td>${u.duration_ms} ms</td><td><code>${u.request_id}</code></td></tr>`)}</tbody></table></div>` : html`<p class="empty">No requests yet. Create an <a href="/keys">API key</a> and call <code>POST /v1/scrape</code>.</p>`}`;
      return send(reply, 200, shell(s, '/', 'Overview', body));
    }),
  );

  // --- API keys -----------------------------------------------------------------------------
  // Users choose a key's rate limit up to the ceiling the operator set for their account.
  const ceilingOf = (s: SessionInfo) => accounts.rateLimitCeiling(s.account, ctx.config.rateLimitPerMinute);
  const keysPage = async (
    s: SessionInfo,
    shown?: { key: string; name: string | null },
    notice?: { kind: 'ok' | 'error'; text: string },
  ) => {
    const rows = await keys.listKeys(ctx.store.db, s.account.id);
    const created = shown
      ? html`<div class="notice ok" role="status"><p><strong>Your new key${shown.name ? html` “${shown.name}”` : ''}.</strong> Copy it now: it is shown only this once.</p>
<p class="secret" id="new-key">${shown.key}</p><button type="button" class="secondary" data-copy="new-key">Copy key</button></div>`
      : raw('');
    const list = rows.length
      ? html`<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Rate limit</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${rows.map(
          (
            k,
          ) => html`<tr><td><code>${k.prefix}</code></td><td>${k.name ?? '—'}</td><td>${k.rate_limit_per_minute ?? ctx.config.rateLimitPerMinute}/min</td><td>${when(k.created_at)}</td><td>${when(k.last_used_at)}</td><td>${k.revoked_at ? 'revoked' : 'active'}</td>
<td>${k.revoked_at ? '' : html`<form class="inline" method="post" action="/keys/${k.id}/revoke" data-confirm="Revoke this key? Requests with it fail at once.">${csrfField(s)}<button class="danger" type="submit" aria-label="Revoke key ${k.prefix}">Revoke</button></form>`}</td></tr>`,
        )}</tbody></table></div>`
      : html`<p class="empty">No keys yet.</p>`;
    const body = html`${created}<h2>Create a key</h2><form class="stack" method="post" action="/keys">${csrfField(s)}
<label for="name">Name (optional)<input id="name" name="name" maxlength="64" placeholder="production"></label>
<label for="rate">Rate limit, requests per minute (at most ${ceilingOf(s)} for this account)<input id="rate" name="rate_limit" type="number" min="1" max="${ceilingOf(s)}" value="${Math.min(ctx.config.rateLimitPerMinute, ceilingOf(s))}"></label>
<button type="submit">Create key</button></form><h2>Your keys</h2>${list}`;
    return shell(s, '/keys', 'API keys', body, notice);
  };
  app.get(
    '/keys',
    { schema: { hide: true } },
    authed(async (_request, reply, s) => send(reply, 200, await keysPage(s))),
  );
  app.post(
    '/keys',
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      const f = form(request);
      const name =
        String(f.name ?? '')
          .trim()
          .slice(0, 64) || undefined;
      const rate = f.rate_limit ? Number(f.rate_limit) : undefined;
      if (rate !== undefined && (!Number.isInteger(rate) || rate < 1 || rate > 100_000))
        return send(
          reply,
          400,
          await keysPage(s, undefined, { kind: 'error', text: 'Rate limit: enter a whole number from 1 to 100000.' }),
        );
      if (rate !== undefined && rate > ceilingOf(s)) {
        return send(
          reply,
          400,
          await keysPage(s, undefined, {
            kind: 'error',
            text: `Rate limit: this account's keys may make at most ${ceilingOf(s)} requests per minute; ask the operator to raise the ceiling.`,
          }),
        );
      }
      const { key } = await keys.createApiKey(ctx.store.db, {
        accountId: s.account.id,
        name,
        rateLimitPerMinute: rate,
      });
      return send(reply, 201, await keysPage(s, { key, name: name ?? null }));
    }),
  );
  app.post<{ Params: { id: string } }>(
    '/keys/:id/revoke',
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      const ok = await keys.revokeKey(ctx.store.db, s.account.id, (request.params as { id: string }).id);
      return send(
        reply,
        ok ? 200 : 404,
        await keysPage(
          s,
          undefined,
          ok
            ? { kind: 'ok', text: 'Key revoked. Requests with it are refused from now on.' }
            : { kind: 'error', text: 'No such key.' },
        ),
      );
    }),
  );

  // --- Webhook signing secret -----------------------------------------------------------------
  const secretPage = (s: SessionInfo, shown?: string, notice?: { kind: 'ok' | 'error'; text: string }) => {
    const overlap = ctx.config.webhookSecretOverlapHours;
    const previousUntil =
      s.account.previous_signing_secret &&
      s.account.previous_secret_expires_at &&
      Date.parse(s.account.previous_secret_expires_at) > Date.now()
        ? s.account.previous_secret_expires_at
        : null;
    return shell(
      s,
      '/secret',
      'Webhook signing secret',
      html`<p>Every webhook is signed twice with this secret: <code>X-Service-Signature: sha256=&lt;HMAC-SHA256 of the body&gt;</code> keyed with the secret string, and the Standard Webhooks headers <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code> that the official <code>standardwebhooks</code> libraries verify with the secret as it is. See the API reference for how to verify them.</p>
${shown ? html`<p class="secret" id="secret">${shown}</p><button type="button" class="secondary" data-copy="secret">Copy secret</button>` : html`<form method="post" action="/secret/reveal">${csrfField(s)}<button type="submit">Reveal secret</button></form>`}
${previousUntil ? html`<p class="muted" data-testid="previous-secret">The previous secret still signs beside this one until ${when(previousUntil)}.</p>` : raw('')}
<h2>Rotate</h2><p>Rotating makes a new secret at once. ${overlap > 0 ? `For ${overlap} hours the old one keeps signing beside it (a second v1 entry in webhook-signature; X-Service-Signature carries the new one), so receivers can switch over without rejecting a delivery.` : 'The old one stops signing at once: receivers still checking it will reject webhooks until updated.'}</p>
<form class="stack" method="post" action="/secret/rotate">${csrfField(s)}<label><span><input type="checkbox" name="confirm" value="yes" required> I understand receivers must switch to the new secret</span></label><button class="danger" type="submit">Rotate secret</button></form>`,
      notice,
    );
  };
  app.get(
    '/secret',
    { schema: { hide: true } },
    authed(async (_request, reply, s) => send(reply, 200, secretPage(s))),
  );
  app.post(
    '/secret/reveal',
    { schema: { hide: true } },
    authed(async (_request, reply, s) => send(reply, 200, secretPage(s, s.account.signing_secret))),
  );
  app.post(
    '/secret/rotate',
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      if (form(request).confirm !== 'yes')
        return send(
          reply,
          400,
          secretPage(s, undefined, { kind: 'error', text: 'Tick the box to confirm the rotation.' }),
        );
      const secret = await accounts.rotateSigningSecret(
        ctx.store.db,
        s.account.id,
        ctx.config.webhookSecretOverlapHours * 3600_000,
      );
      // The page shows the account as it is now (the previous secret and until when it signs).
      const account = (await accounts.findAccountById(ctx.store.db, s.account.id)) ?? s.account;
      return send(
        reply,
        200,
        secretPage({ ...s, account }, secret, {
          kind: 'ok',
          text: 'Secret rotated. Update your receivers with the new secret below.',
        }),
      );
    }),
  );

  const kit: Kit = { authed, shell, csrfField, send, when };
  monitorPages(app, ctx, kit);
  channelPages(app, ctx, kit);
  jobPages(app, ctx, kit);
  playgroundPage(app, ctx, kit);
  playgroundTabs(app, ctx, kit);

  // --- Account: password --------------------------------------------------------------------
  const accountPage = (s: SessionInfo, notice?: { kind: 'ok' | 'error'; text: string }) =>
    shell(
      s,
      '/account',
      'Account',
      html`<p>Signed in as <strong>${s.account.email}</strong> (account <code>${s.account.id}</code>).</p>
<h2>Change password</h2><form class="stack" method="post" action="/account/password">${csrfField(s)}
<label for="current">Current password<input id="current" name="current" type="password" autocomplete="current-password" required></label>
<label for="new">New password<input id="new" name="password" type="password" autocomplete="new-password" minlength="8" required></label>
<button type="submit">Change password</button></form>`,
      notice,
    );
  app.get(
    '/account',
    { schema: { hide: true } },
    authed(async (_request, reply, s) => send(reply, 200, accountPage(s))),
  );
  app.post(
    '/account/password',
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      const f = form(request);
      if (!(await verifyPassword(String(f.current ?? ''), s.account.password_hash)))
        return send(reply, 400, accountPage(s, { kind: 'error', text: 'The current password is wrong.' }));
      const next = String(f.password ?? '');
      if (next.length < 8 || next.length > 200)
        return send(reply, 400, accountPage(s, { kind: 'error', text: 'Choose a password of 8 to 200 characters.' }));
      await accounts.setPasswordHash(ctx.store.db, s.account.id, await hashPassword(next));
      await sessions.endOtherSessions(ctx.store.db, s.account.id, s.token);
      return send(
        reply,
        200,
        accountPage(s, { kind: 'ok', text: 'Password changed. Other sessions were logged out.' }),
      );
    }),
  );
}
