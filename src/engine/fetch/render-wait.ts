/**
 * When a loaded page is ready to read: quiet network and an idle main thread (`settle`), and, when
 * asked, a vendor's script challenge given the time to clear itself (`clearChallenge`).
 */
import type { Page } from 'playwright-core';
import { timeoutError } from '../../errors.js';
import { ASKS_A_HUMAN, detectBotWall, wallKind } from './bot-wall.js';

/** What a render counts of its page's requests: how many are in flight, and when the last started or ended. */
export interface Traffic {
  inflight: number;
  last: number;
}

/** After load, a page is read once no request has been in flight this long (and its scripts are idle)… */
export const QUIET_MS = 150;
/** …or after this much, whichever comes first. */
export const SETTLE_MAX_MS = 3000;

/** True for a page without scripts, frames, plugins or a refresh: after its load event, nothing of it fetches more. */
const STATIC_PAGE = `document.scripts.length === 0 && !document.querySelector('iframe, frame, object, embed, meta[http-equiv="refresh" i]')`;

/**
 * Waits until the page has had no request in flight for QUIET_MS and its main thread is free (a
 * round trip to the page waits for a script still running, e.g. a bundle about to fetch its
 * data), at most `maxMs`. Playwright's "networkidle" waits a fixed 500 ms after the last request
 * on every page; this ends as soon as a quiet page is quiet.
 */
export async function settle(page: Page, traffic: Traffic, maxMs: number): Promise<void> {
  const end = Date.now() + maxMs;
  // A page with nothing that could start a request after its load (no script, no frame) is done now.
  if (traffic.inflight === 0 && (await page.evaluate(STATIC_PAGE).catch(() => false))) return;
  const quiet = () => traffic.inflight === 0 && Date.now() - traffic.last >= QUIET_MS;
  while (Date.now() < end) {
    if (quiet()) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        page.evaluate(() => new Promise((r) => setTimeout(r, 0))).catch(() => undefined),
        new Promise((r) => (timer = setTimeout(r, Math.max(1, end - Date.now())))),
      ]);
      clearTimeout(timer);
      if (quiet()) return;
    }
    const wait = traffic.inflight === 0 ? QUIET_MS - (Date.now() - traffic.last) : 25;
    await new Promise((r) => setTimeout(r, Math.max(5, Math.min(wait, end - Date.now()))));
  }
}

/** True when the page may be a vendor's wall (bot-wall.ts has the verdict): its title, its scripts, its globals, its widgets. */
const MAY_BE_A_WALL = `(() => {
  if (/Just a moment|Pardon Our Interruption|Access Denied|Attention Required|Robot or human|Robot Check|DataDome|Security check|Are you a robot|Human verification|Checking your browser/i.test(document.title)) return true;
  const srcs = Array.from(document.scripts, (s) => s.src).join(' ');
  if (/challenge-platform|captcha-delivery|ips\\.js|_Incapsula_Resource|bm-verify|recaptcha|hcaptcha|turnstile/i.test(srcs)) return true;
  if (typeof window._cf_chl_opt !== 'undefined' || typeof window.dd !== 'undefined' || typeof window.KPSDK !== 'undefined') return true;
  return !!document.querySelector('#challenge-form, #challenge-stage, #px-captcha, .cf-turnstile, .g-recaptcha, .h-captcha, iframe[src*="_Incapsula_Resource"]');
})()`;

/** A challenge page with no request in flight for this long is not going to clear. */
const CHALLENGE_STALL_MS = 3000;

/** How long a page that asks a person is given to turn into one that does not (a managed challenge deciding). */
const HUMAN_GRACE_MS = 2000;

/**
 * Waits while the page is a `script` wall (bot-wall.ts) for it to go away, until `deadline`. True
 * when it went (a reload came with the clearance cookie); false when it stayed, or turned into a
 * page asking a person, which is left as it is (the caller reports it `blocked`).
 */
export async function clearChallenge(
  page: Page,
  status: () => number,
  deadline: number,
  traffic: Traffic,
): Promise<boolean> {
  const started = Date.now();
  let waited = false;
  // Most renders are no wall: a look at the title, the scripts and a few ids says so without
  // serialising the page (the read that follows does that once).
  if (status() < 400 && !(await page.evaluate(MAY_BE_A_WALL).catch(() => true))) return false;
  for (;;) {
    const html = await page.content().catch(() => undefined);
    if (html !== undefined) {
      const wall = detectBotWall(status(), html);
      if (!wall) return waited;
      if (wallKind(wall) !== 'script' || (ASKS_A_HUMAN.test(html) && Date.now() - started > HUMAN_GRACE_MS))
        return false;
    }
    const left = deadline - Date.now() - 250;
    if (left <= 0) return false;
    // A challenge at work talks to its vendor or reloads; one quiet this long has given up (or
    // waits for a person): the rest of the budget would be spent for nothing.
    if (traffic.inflight === 0 && Date.now() - traffic.last > CHALLENGE_STALL_MS) return false;
    waited = true;
    await page.waitForEvent('load', { timeout: Math.min(500, left) }).catch(() => undefined);
  }
}

/** `work`, or a timeout error once `ms` passed (the work is left to end on its own: its tab is closed after). */
export function byDeadline<T>(work: Promise<T>, ms: number, detail: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(detail())), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
