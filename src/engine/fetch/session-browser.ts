/**
 * A saved browser session in a render's context (issue 44): its cookies added before the page
 * loads (only its own sites' cookies are in the jar), its localStorage written by an init script on
 * its own origins only, and both read back once the page is read, so what the site set is kept.
 */
import type { BrowserContext, Page } from 'playwright-core';
import type { OriginStorage, SessionCookie, SessionJar } from './session-jar.js';

/** Runs in the page: fills localStorage once per tab for an origin the session holds (DATA: origin → items). */
const FILL_STORAGE = `(() => {
  const items = DATA[location.origin];
  if (!items) return;
  try {
    if (sessionStorage.getItem('__trawl_session_loaded')) return;
    for (const { name, value } of items) localStorage.setItem(name, value);
    sessionStorage.setItem('__trawl_session_loaded', '1');
  } catch {}
})()`;

/** Runs in the page: its origin and localStorage. */
const READ_STORAGE = `(() => ({
  origin: location.origin,
  localStorage: Object.keys(localStorage).map((name) => ({ name, value: localStorage.getItem(name) ?? '' })),
}))()`;

export async function loadSession(context: BrowserContext, jar: SessionJar): Promise<void> {
  const cookies = jar.browserCookies();
  if (cookies.length) await context.addCookies(cookies);
  const origins = jar.origins().filter((o) => o.localStorage.length);
  if (origins.length)
    await context.addInitScript(
      FILL_STORAGE.replace('DATA', () =>
        JSON.stringify(Object.fromEntries(origins.map((o) => [o.origin, o.localStorage]))),
      ),
    );
}

/** What the browser holds once the page is read goes back to the jar (the page's own origin's localStorage). */
export async function saveSession(context: BrowserContext, page: Page, jar: SessionJar): Promise<void> {
  const cookies = (await context.cookies().catch(() => [])) as SessionCookie[];
  const origin = (await page.evaluate(READ_STORAGE).catch(() => undefined)) as OriginStorage | undefined;
  jar.takeBrowserState(cookies, origin && jar.onSite(origin.origin) ? origin : undefined);
}
