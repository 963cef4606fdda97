/**
 * Saved browser sessions as an account keeps and uses them (issue 44): made from an uploaded
 * storage state or cookie list, or by running a login recipe in the browser; sealed at rest under
 * TRAWL_SECRET_KEY (refused without it); shown only as names, domains, counts, times and status;
 * used by a page read (`withBrowserSession`), which writes back what the site set, and which, when
 * the site shows the session has expired, marks it so and logs in again once with its recipe.
 */
import { forOwner } from '../engine/index.js';
import { fetchPage } from '../engine/fetch/page.js';
import { releasePage } from '../engine/fetch/page-model.js';
import { isLoginUrl, SessionJar, type SessionCookie, type StorageState } from '../engine/fetch/session-jar.js';
import { isPublicSuffix, registrableDomain } from '../engine/fetch/site.js';
import { isSessionExpired, sessionExpired } from '../engine/session-expired.js';
import type { Action } from '../engine/fetch/actions.js';
import type { SessionCreateBody } from '../contract/schemas.js';
import { invalidRequest, isTrawlError, notFound, TrawlError } from '../errors.js';
import { createSealer, SealError, type Sealer } from '../sealed.js';
import { browserSessions as repo } from '../store/index.js';
import type { BrowserSession } from '../store/tables.js';
import type { AppContext } from './context.js';

/** What sessions need of the context: the key, the store, the engine (a scheduler hands these too). */
export type SessionContext = Pick<AppContext, 'config' | 'store' | 'engine'>;
import type { Config } from '../config.js';

const PURPOSE = 'browser-session';
/** How long a login recipe may take. */
const LOGIN_BUDGET_MS = 60_000;
/** Sessions an account may keep (each up to a 1 MiB body, sealed): storage is not unbounded. */
export const MAX_SESSIONS = 100;
/** How long after an automatic login that did not help no other is tried (the user's real account may lock). */
export const RELOGIN_COOLDOWN_MS = 10 * 60_000;
const SECRET_REF = /\{\{\s*secret\.([A-Za-z0-9_]+)\s*\}\}/g;

interface Recipe {
  url: string;
  actions: Action[];
  secrets: Record<string, string>;
}

/** The sealer, or the operator's sentence: sessions are never stored without the key. */
export function sealerOf(ctx: { config: Pick<Config, 'secretKey' | 'secretKeyPrevious'> }): Sealer {
  const sealer = createSealer(ctx.config.secretKey, ctx.config.secretKeyPrevious);
  if (!sealer)
    throw invalidRequest(
      'saved sessions need a key to encrypt them at rest, and this server has none: the operator sets TRAWL_SECRET_KEY (32 characters or more, e.g. `openssl rand -hex 32`) and restarts',
    );
  return sealer;
}

const hostOf = (domain: string) => domain.toLowerCase().replace(/^\./, '');

function siteOf(host: string, what: string): string {
  const h = hostOf(host);
  if (isPublicSuffix(h)) throw invalidRequest(`${what}: "${h}" is a public suffix, not a site`);
  return registrableDomain(h);
}

/** The sites a new session belongs to: given, or those of its login URL or of its cookies and origins. */
function sitesOf(body: SessionCreateBody): string[] {
  if (body.sites) return [...new Set(body.sites.map((s, i) => siteOf(s, `sites[${i}]`)))];
  const hosts = body.login
    ? [new URL(body.login.url).hostname]
    : [
        ...(body.cookies ?? body.storage_state?.cookies ?? []).map((c) => c.domain),
        ...(body.storage_state?.origins ?? []).map((o) => new URL(o.origin).hostname),
      ];
  const sites = [...new Set(hosts.map((h) => siteOf(h, 'cookies.domain')))];
  if (!sites.length)
    throw invalidRequest('sites: the session has no cookies or origins to take its sites from; list them');
  return sites;
}

function storedCookie(c: NonNullable<SessionCreateBody['cookies']>[number]): SessionCookie {
  return {
    name: c.name,
    value: c.value,
    domain: c.domain.toLowerCase(),
    path: c.path || '/',
    expires: c.expires ?? -1,
    httpOnly: c.httpOnly ?? false,
    secure: c.secure ?? false,
    sameSite: c.sameSite ?? 'Lax',
  };
}

/** The secrets a recipe's steps name, each given; values put in where named. */
function withSecrets(actions: Action[], secrets: Record<string, string>): Action[] {
  const fill = (s: string) =>
    s.replace(SECRET_REF, (_, name: string) => {
      const v = secrets[name];
      if (v === undefined) throw invalidRequest(`login.actions: {{secret.${name}}} is not in login.secrets`);
      return v;
    });
  return actions.map(
    (a) =>
      Object.fromEntries(
        Object.entries(a).map(([k, v]) => [k, typeof v === 'string' && k !== 'type' ? fill(v) : v]),
      ) as Action,
  );
}

/** An error of the login run with every secret value taken out of its words. */
function withoutSecrets(e: unknown, secrets: Record<string, string>): unknown {
  // A failure of another kind is said in the contract's words too, so nothing quotes a secret into a log.
  if (!isTrawlError(e))
    return withoutSecrets(
      new TrawlError('fetch_failed', `the login recipe failed: ${String((e as Error)?.message ?? e).split('\n')[0]}`),
      secrets,
    );
  let detail = e.detail;
  // As typed, and as a GET form or a script would put it in a URL the error quotes.
  const forms = (v: string) => [v, encodeURIComponent(v), encodeURI(v), new URLSearchParams({ v }).toString().slice(2)];
  for (const v of Object.values(secrets))
    for (const f of new Set(v ? forms(v) : [])) detail = detail.split(f).join('[secret]');
  return detail === e.detail
    ? e
    : new TrawlError(e.code, detail, { fields: e.fields, retryable: e.retryable, charged: e.charged });
}

/** A URL without its query and fragment: a GET login form puts what was typed there. */
const withoutQuery = (u: string) => {
  try {
    const url = new URL(u);
    return `${url.origin}${url.pathname}`;
  } catch {
    return '[the page]';
  }
};

/** Runs a login recipe in the browser with a fresh jar; the jar holds what the site set. */
async function logIn(
  ctx: SessionContext,
  accountId: string,
  name: string,
  sites: string[],
  r: Recipe,
  signal?: AbortSignal,
) {
  const jar = new SessionJar(name, { cookies: [], origins: [] }, sites);
  if (!jar.onSite(r.url))
    throw invalidRequest(`login.url: ${r.url} is not on the session's sites (${sites.join(', ')})`);
  try {
    const page = await fetchPage(forOwner(ctx.engine, accountId), r.url, {
      render: 'browser',
      timeoutMs: LOGIN_BUDGET_MS,
      signal,
      actions: withSecrets(r.actions, r.secrets),
      setup: { session: jar },
    });
    releasePage(page);
    if (/<input\b[^>]*\btype\s*=\s*["']?password\b/i.test(page.text ?? '') || isLoginUrl(page.url))
      throw new TrawlError(
        'action_failed',
        `session "${name}": the login recipe ran, but ${withoutQuery(page.url)} still shows a login form; check the steps and the secrets`,
      );
  } catch (e) {
    throw withoutSecrets(e, r.secrets);
  }
  return jar;
}

/** What a sealed column holds, or the operator's sentence when this server's keys cannot open it. */
function opened(s: Sealer, row: BrowserSession, sealed: string): string {
  try {
    return s.open(sealed, PURPOSE);
  } catch (e) {
    if (!(e instanceof SealError)) throw e;
    throw invalidRequest(unreadable(row.name));
  }
}
const unreadable = (name: string) =>
  `session "${name}" was sealed under a key this server no longer has (TRAWL_SECRET_KEY changed without the old one in TRAWL_SECRET_KEY_PREVIOUS): the operator restores the key, or you delete the session and create it again`;
const openState = (s: Sealer, row: BrowserSession) => JSON.parse(opened(s, row, row.state_sealed)) as StorageState;
const openRecipe = (s: Sealer, row: BrowserSession) => JSON.parse(opened(s, row, row.recipe_sealed!)) as Recipe;
const sealState = (s: Sealer, state: StorageState) => s.seal(JSON.stringify(state), PURPOSE);
const sitesOfRow = (row: BrowserSession) => JSON.parse(row.sites) as string[];

/** What an answer says of a session: never a cookie's value, a stored item's value or a secret. */
export function presentSession(row: BrowserSession, state: StorageState) {
  const expiring = state.cookies.filter((c) => c.expires > 0).map((c) => c.expires);
  return {
    name: row.name,
    sites: sitesOfRow(row),
    status: row.status,
    has_login: row.recipe_sealed !== null,
    cookies: state.cookies.map((c) => ({
      name: c.name,
      domain: c.domain,
      expires_at: c.expires > 0 ? new Date(c.expires * 1000).toISOString() : null,
    })),
    cookie_count: state.cookies.length,
    local_storage: state.origins.map((o) => ({ origin: o.origin, items: o.localStorage.length })),
    expires_at: expiring.length ? new Date(Math.min(...expiring) * 1000).toISOString() : null,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    last_refreshed_at: row.last_refreshed_at,
    expired_at: row.expired_at,
  };
}

async function rowOf(ctx: SessionContext, accountId: string, name: string): Promise<BrowserSession> {
  const row = await repo.findBrowserSession(ctx.store.db, accountId, name);
  if (!row) throw notFound(`no session named "${name}" in this account`);
  return row;
}

export async function createBrowserSession(ctx: AppContext, accountId: string, body: SessionCreateBody) {
  const sealer = sealerOf(ctx);
  const sites = sitesOf(body);
  if (await repo.findBrowserSession(ctx.store.db, accountId, body.name))
    throw invalidRequest(
      `name: this account already has a session named "${body.name}"; delete it first or choose another name`,
    );
  if ((await repo.countBrowserSessions(ctx.store.db, accountId)) >= MAX_SESSIONS)
    throw invalidRequest(
      `sessions: this account already has ${MAX_SESSIONS} sessions, the most it may keep; delete one it no longer needs first`,
    );
  let state: StorageState;
  let recipe: Recipe | undefined;
  if (body.login) {
    recipe = { url: body.login.url, actions: body.login.actions as Action[], secrets: body.login.secrets ?? {} };
    withSecrets(recipe.actions, recipe.secrets); // every named secret given, before the browser runs
    state = (await logIn(ctx, accountId, body.name, sites, recipe)).state();
  } else {
    const given: StorageState = body.cookies
      ? { cookies: body.cookies.map(storedCookie), origins: [] }
      : {
          cookies: body.storage_state!.cookies.map(storedCookie),
          origins: (body.storage_state!.origins ?? []).map((o) => ({
            origin: new URL(o.origin).origin,
            localStorage: o.localStorage,
          })),
        };
    // Only what belongs to the session's sites is kept.
    state = new SessionJar(body.name, given, sites).state();
    if (!state.cookies.length && !state.origins.length)
      throw invalidRequest(`no cookie or origin given is on the session's sites (${sites.join(', ')})`);
  }
  const row = await repo.createBrowserSession(ctx.store.db, {
    accountId,
    name: body.name,
    sites,
    stateSealed: sealState(sealer, state),
    recipeSealed: recipe && sealer.seal(JSON.stringify(recipe), PURPOSE),
  });
  if (!row) throw invalidRequest(`name: this account already has a session named "${body.name}"`);
  return presentSession(row, state);
}

export async function listBrowserSessions(ctx: AppContext, accountId: string) {
  const sealer = sealerOf(ctx);
  const rows = await repo.listBrowserSessions(ctx.store.db, accountId);
  // One session this server's keys cannot open is shown as such; the others are still listed.
  return rows.map((row) => {
    try {
      return presentSession(row, openState(sealer, row));
    } catch (e) {
      if (!isTrawlError(e)) throw e;
      return { ...presentSession(row, { cookies: [], origins: [] }), status: 'unreadable' as const };
    }
  });
}

export async function getBrowserSession(ctx: AppContext, accountId: string, name: string) {
  const row = await rowOf(ctx, accountId, name);
  return presentSession(row, openState(sealerOf(ctx), row));
}

export async function deleteBrowserSession(ctx: AppContext, accountId: string, name: string): Promise<void> {
  if (!(await repo.deleteBrowserSession(ctx.store.db, accountId, name)))
    throw notFound(`no session named "${name}" in this account`);
}

/** Runs the session's login recipe again; its fresh state replaces the old one. */
export async function refreshBrowserSession(
  ctx: SessionContext,
  accountId: string,
  name: string,
  signal?: AbortSignal,
) {
  const sealer = sealerOf(ctx);
  const row = await rowOf(ctx, accountId, name);
  if (!row.recipe_sealed)
    throw invalidRequest(
      `session "${name}" was uploaded, not made by a login recipe: upload it again (delete, then create)`,
    );
  const jar = await logIn(ctx, accountId, name, sitesOfRow(row), openRecipe(sealer, row), signal);
  await repo.sessionRefreshed(ctx.store.db, row.id, sealState(sealer, jar.state()));
  return presentSession((await repo.findBrowserSession(ctx.store.db, accountId, name))!, jar.state());
}

const reasonOf = (e: unknown) =>
  e instanceof TrawlError
    ? e.detail.replace(/^session "[^"]*" has expired: /, '').replace(/; log in again.*$/, '')
    : '';

/**
 * When the session is still expired after an automatic login tried within the cooldown (it failed,
 * or the site still showed it logged out): that login's time. Logging in again on every request
 * would cost a browser run each time and, with a changed password, lock the user's account.
 */
function loginDidNotHelp(row: BrowserSession): string | undefined {
  if (row.status !== 'expired' || !row.login_tried_at) return undefined;
  const tried = new Date(row.login_tried_at).getTime();
  return Date.now() - tried < RELOGIN_COOLDOWN_MS ? new Date(tried).toISOString() : undefined;
}

/**
 * A page read with a saved session: `run` gets its jar (its own sites only: a URL elsewhere is
 * refused). What the site set is sealed back. When the site shows the session has expired, it is
 * marked expired and, when it has a login recipe, logged in again once and `run` tried once more.
 */
export function withBrowserSession<T>(
  ctx: SessionContext,
  accountId: string,
  name: string,
  url: string,
  run: (jar: SessionJar) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  return oneAtATime(`${accountId}\n${name}`, () => useSession(ctx, accountId, name, url, run, signal));
}

/** The uses of each session now running or waiting, chained (key: account and name). */
const inUse = new Map<string, Promise<void>>();

/**
 * One use of a session at a time in this process, each reading the state the one before wrote
 * back: a site that rotates its cookie on every visit would otherwise see the same cookie twice,
 * log the session out, and make every concurrent read log in again (and the last write-back win).
 */
async function oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const before = inUse.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((r) => (done = r));
  const tail = before.then(() => mine);
  inUse.set(key, tail);
  await before;
  try {
    return await fn();
  } finally {
    done();
    if (inUse.get(key) === tail) inUse.delete(key);
  }
}

async function useSession<T>(
  ctx: SessionContext,
  accountId: string,
  name: string,
  url: string,
  run: (jar: SessionJar) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const sealer = sealerOf(ctx);
  const row = await rowOf(ctx, accountId, name);
  const sites = sitesOfRow(row);
  const first = new SessionJar(name, openState(sealer, row), sites);
  if (!first.onSite(url))
    throw invalidRequest(
      `session: "${name}" belongs to ${sites.join(', ')}, and ${new URL(url).hostname} is another site; a session goes to its own sites only`,
    );
  const attempt = async (jar: SessionJar) => {
    try {
      const value = await run(jar);
      await repo.sessionUsed(ctx.store.db, row.id, jar.changed ? sealState(sealer, jar.state()) : undefined);
      return value;
    } catch (e) {
      if (isSessionExpired(e)) await repo.sessionExpired(ctx.store.db, row.id);
      else if (jar.changed) await repo.sessionUsed(ctx.store.db, row.id, sealState(sealer, jar.state()));
      throw e;
    }
  };
  try {
    return await attempt(first);
  } catch (e) {
    if (!isSessionExpired(e) || !row.recipe_sealed) throw e;
    const held = loginDidNotHelp(row);
    if (held)
      throw sessionExpired(
        first,
        `${reasonOf(e)}; logging in again at ${held} did not bring it back (the recipe failed, or the site still showed it logged out), so it does not log in again by itself before ${new Date(Date.parse(held) + RELOGIN_COOLDOWN_MS).toISOString()} (check the recipe, or POST /v1/sessions/${name}/refresh)`,
      );
    // Once, automatically: the recipe logs in again, and the page is read with the fresh state.
    let fresh: SessionJar;
    await repo.sessionLoginTried(ctx.store.db, row.id);
    try {
      fresh = await logIn(ctx, accountId, name, sites, openRecipe(sealer, row), signal);
    } catch (why) {
      throw sessionExpired(
        first,
        `${reasonOf(e)}; logging in again with its recipe failed (${isTrawlError(why) ? why.detail : 'an error'})`,
      );
    }
    await repo.sessionRefreshed(ctx.store.db, row.id, sealState(sealer, fresh.state()));
    return attempt(fresh);
  }
}

/** A monitor's session: the account's own (404 otherwise), usable here (the key), and its URL on the session's sites. */
export async function checkSessionFor(
  ctx: { config: Pick<Config, 'secretKey' | 'secretKeyPrevious'>; store: SessionContext['store'] },
  accountId: string,
  name: string,
  url: string,
): Promise<void> {
  sealerOf(ctx);
  const row = await repo.findBrowserSession(ctx.store.db, accountId, name);
  if (!row) throw notFound(`session: no session named "${name}" in this account`);
  const sites = sitesOfRow(row);
  if (!sites.includes(registrableDomain(new URL(url).hostname)))
    throw invalidRequest(
      `session: "${name}" belongs to ${sites.join(', ')}, and ${new URL(url).hostname} is another site; a session goes to its own sites only`,
    );
}

/** The monitors' port (monitors/runner.ts SessionUse) over this module. */
export const sessionUse =
  (ctx: SessionContext) =>
  <T>(accountId: string, name: string, url: string, run: (jar: SessionJar) => Promise<T>, signal?: AbortSignal) =>
    withBrowserSession(ctx, accountId, name, url, run, signal);
