/**
 * The ladder's two rungs (page.ts climbs them): a page over HTTP, with Retry-After patience and a
 * script shell handed to the browser, and a page rendered in Chromium. Both turn a wall, a ≥ 400
 * answer and an unreadable type into the contract's errors.
 */
import { TrawlError, fetchFailed } from '../../errors.js';
import { deviceHeaders, siteHeaders } from './emulation.js';
import { detectBotWall, detectWallHeaders, wallKind } from './bot-wall.js';
import { decodeBody } from './charset.js';
import type { HttpClient } from './http.js';
import type { PageLease } from './large-pages.js';
import { admitted } from './page-admission.js';
import { kindOf, looksLikeAppShell } from './page-kind.js';
import {
  TargetStatus,
  WallSeen,
  withoutCredentials,
  type FetchPageOptions,
  type Fetchers,
  type Page,
  type PageKind,
  type RenderMode,
} from './page-model.js';

const wallError = (at: string, name: string) =>
  new TrawlError('blocked', `${at} answered with a bot wall (${name}); it was not scraped and no credit was charged`, {
    cause: new WallSeen(name, wallKind(name)),
    retryable: false,
  });

export const NO_BROWSER_WARNING =
  'this page draws its content with JavaScript and needs a browser to render it, but Chromium is not installed on this server: install the Debian package `chromium` (or set CHROMIUM_PATH to a Chromium binary) and ask again; the content returned is what the HTML holds without JavaScript';

export async function fetchHttpAdmitted(
  fetchers: Fetchers,
  url: string,
  options: FetchPageOptions & { clearChallenge?: boolean },
  render: RenderMode,
): Promise<Page> {
  // A page waits here, before its request is sent, while the pages held are over budget.
  const gate = fetchers.largePages;
  const lease = gate ? (gate.tryAdmit() ?? (await admitted(gate, options))) : undefined;
  try {
    const page = await fetchOverHttp(fetchers, url, options, render, lease);
    if (lease && page.lease !== lease) lease.release();
    return page;
  } catch (e) {
    lease?.release();
    throw e;
  }
}

async function fetchOverHttp(
  fetchers: Fetchers,
  url: string,
  options: FetchPageOptions,
  render: RenderMode,
  lease: PageLease | undefined,
): Promise<Page> {
  // The job's clearance cookies for this host go with the request (clearance.ts).
  const setup = options.jar ? options.jar.setupFor(url, options.setup) : options.setup;
  const budget = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + budget;
  let res: Awaited<ReturnType<HttpClient['request']>>;
  let kind: PageKind | undefined;
  let text: string | undefined;
  let contentType: string;
  for (let attempt = 1; ; attempt++) {
    res = await fetchers.http.request(url, {
      timeoutMs: Math.max(1, deadline - Date.now()),
      maxBytes: options.maxBytes,
      signal: options.signal,
      headers: setup ? { ...options.headers, ...deviceHeaders(setup) } : options.headers,
      hopHeaders: siteHeaders(url, setup),
      hopAnswered: setup?.session && ((u, h) => setup.session!.absorb(u, h['set-cookie'])),
      followRedirect: options.followRedirect,
      lease,
      proxyTier: options.proxyTier,
    });
    contentType = res.headers['content-type'] ?? '';
    kind = kindOf(contentType, res.body);
    text = undefined;
    if (kind === 'html' || kind === 'text' || res.status >= 400)
      text = decodeBody(res.body, contentType, kind !== 'text').text;
    // The page names its wall best (DataDome's says whether it is a device check or a captcha); headers say it when the body does not.
    const wall =
      (text !== undefined && (kind === 'html' || res.status >= 400) ? detectBotWall(res.status, text) : undefined) ??
      detectWallHeaders(res.status, res.headers);
    if (wall) throw wallError(res.url, wall);
    if ((res.status !== 429 && res.status !== 503) || res.headers['retry-after'] === undefined) break;
    // Patience (issue 42): a target that says when to come back is asked again then, if that fits the budget.
    const at = retryAfterDate(res.headers['retry-after']);
    if (!at) break;
    // "Now" (0, a date past) still gets a second's pause: asking again at once is hammering.
    const wait = Math.max(MIN_RETRY_WAIT_MS, at.getTime() - Date.now());
    if (attempt < MAX_RETRY_AFTER_TRIES && Date.now() + wait + 250 < deadline) {
      await sleep(wait, options.signal);
      continue;
    }
    throw fetchFailed(
      attempt >= MAX_RETRY_AFTER_TRIES
        ? `${res.url} still answered HTTP ${res.status} after ${attempt} tries, each time asking to be asked again (Retry-After: ${res.headers['retry-after']}); try later`
        : `${res.url} answered HTTP ${res.status} and asks to be asked again in ${Math.ceil(wait / 1000)} s (at ${at.toISOString()}), past this request's time budget (timeout_ms ${budget}); retry after that`,
      new TargetStatus(res.status, at),
    );
  }
  if (res.status >= 400) throw fetchFailed(`${res.url} answered HTTP ${res.status}`, new TargetStatus(res.status));
  if (!kind) throw fetchFailed(`${res.url} is ${contentType || 'of unknown type'}, not HTML, PDF or text`);
  const page: Page = {
    sourceUrl: withoutCredentials(url),
    url: res.url,
    status: res.status,
    contentType,
    kind,
    rendered: false,
    lease,
  };
  if (kind === 'pdf') page.bytes = res.body;
  else page.text = text;
  if (render === 'auto' && kind === 'html' && looksLikeAppShell(page.text!)) {
    if (!fetchers.browser?.available) {
      page.warnings = [NO_BROWSER_WARNING];
      return page;
    }
    try {
      return {
        ...(await renderPage(fetchers, url, { ...options, timeoutMs: Math.max(1, deadline - Date.now()) })),
        shell: true,
      };
    } catch (e) {
      // The HTTP copy is still an answer; a failed render does not make it worse.
      if (e instanceof TrawlError && (e.code === 'forbidden_target' || e.code === 'blocked')) throw e;
      page.warnings = [
        `this page draws its content with JavaScript, and rendering it in Chromium failed (${e instanceof TrawlError ? e.detail : 'browser error'}); the content returned is what the HTML holds without JavaScript`,
      ];
    }
  }
  return page;
}

export async function renderPage(
  fetchers: Fetchers,
  url: string,
  options: FetchPageOptions & { clearChallenge?: boolean },
): Promise<Page> {
  if (!fetchers.browser?.available) {
    throw new TrawlError(
      'fetch_failed',
      'render "browser" needs Chromium, which is not installed on this server (set CHROMIUM_PATH)',
      { retryable: false },
    );
  }
  const started = Date.now();
  const r = await fetchers.browser.render(url, {
    timeoutMs: options.timeoutMs ?? 30_000,
    waitFor: options.waitFor,
    signal: options.signal,
    owner: fetchers.slots?.owner,
    setup: options.jar ? options.jar.setupFor(url, options.setup) : options.setup,
    actions: options.actions,
    screenshot: options.screenshot,
    imageFormat: options.imageFormat,
    proxyTier: options.proxyTier,
    clearChallenge: options.clearChallenge ?? true,
    cleared: options.jar && ((at, cookies) => options.jar!.keep(at, cookies)),
  });
  // Credentials in the URL stay out of every answer, as on the HTTP path.
  const at = withoutCredentials(r.url);
  const wall = detectBotWall(r.status, r.html);
  if (wall) throw wallError(at, wall);
  if (r.status >= 400) throw fetchFailed(`${at} answered HTTP ${r.status}`, new TargetStatus(r.status));
  if (kindOf(r.contentType, Buffer.alloc(0)) === 'pdf') {
    // Chromium shows a PDF in its viewer (the screenshot is of its first page); the document
    // itself is read from its bytes, fetched again over HTTP within what is left of the budget.
    const doc = await fetchOverHttp(
      fetchers,
      url,
      { ...options, timeoutMs: Math.max(1000, (options.timeoutMs ?? 30_000) - (Date.now() - started)) },
      'http',
      undefined,
    );
    // (The render's warnings — what its screenshot cut or scaled — stay with the answer.)
    const warnings = [...(r.warnings ?? []), ...(doc.warnings ?? [])];
    return {
      ...doc,
      sourceUrl: withoutCredentials(url),
      rendered: true,
      ...(warnings.length ? { warnings } : {}),
      ...(r.screenshot ? { screenshot: r.screenshot } : {}),
      ...(r.actions ? { actions: r.actions } : {}),
    };
  }
  return {
    sourceUrl: withoutCredentials(url),
    url: at,
    status: r.status,
    contentType: r.contentType || 'text/html',
    kind: 'html',
    text: r.html,
    rendered: true,
    ...(r.warnings ? { warnings: r.warnings } : {}),
    ...(r.screenshot ? { screenshot: r.screenshot } : {}),
    ...(r.actions ? { actions: r.actions } : {}),
  };
}

/** Tries of a page that answers 429/503 with Retry-After (the first and three more). */
const MAX_RETRY_AFTER_TRIES = 4;
/** The least pause before asking again, whatever Retry-After says. */
const MIN_RETRY_WAIT_MS = 1_000;

/** A Retry-After value (seconds, or an HTTP date) as the moment it names; undefined when it is neither. */
export function retryAfterDate(value: string, now = Date.now()): Date | undefined {
  const v = value.trim();
  if (/^\d{1,9}$/.test(v)) return new Date(now + Number(v) * 1000);
  const t = Date.parse(v);
  return Number.isFinite(t) ? new Date(Math.max(t, now)) : undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
