/**
 * Browser actions (contract section 9): steps run in order on the loaded page before it is read —
 * wait, click, write, press, scroll, screenshot, scrape, execute_javascript. Each step has a bound
 * of its own (STEP_MS) and all of them share the request's deadline. A step that cannot be done is
 * `action_failed` naming it (`actions[2]: no element matches '#more' within 5000 ms`); a step cut
 * short by the request's budget rather than its own bound is a `timeout`. Every request a step
 * causes goes through the render's guarded proxy like any other; a main-frame navigation the guard
 * refused fails the whole request as forbidden_target, as a refused redirect does.
 */
import type { Page } from 'playwright-core';
import { isTrawlError, TrawlError, timeoutError } from '../../errors.js';
import { capture, type ImageFormat } from './screenshot.js';

export type { ImageFormat, ScreenshotSpec } from './screenshot.js';

/** The wire shape of a step (stored as such on jobs and monitors). */
export type Action =
  | { type: 'wait'; milliseconds: number; selector?: undefined }
  | { type: 'wait'; selector: string; milliseconds?: undefined }
  | { type: 'click'; selector: string; all?: boolean }
  | { type: 'write'; selector?: string; text: string }
  | { type: 'press'; key: string }
  | { type: 'scroll'; direction: 'down' | 'up'; amount?: number | 'bottom' }
  | { type: 'screenshot'; full_page?: boolean }
  | { type: 'scrape' }
  | { type: 'execute_javascript'; script: string };

export const ACTION_TYPES = [
  'wait',
  'click',
  'write',
  'press',
  'scroll',
  'screenshot',
  'scrape',
  'execute_javascript',
] as const;

/** What the steps produced, in step order per kind. */
export interface ActionOutput {
  screenshots: Buffer[];
  scrapes: { url: string; html: string }[];
  javascriptReturns: unknown[];
  /** Bytes of HTML the scrapes hold. */
  scrapedBytes?: number;
}

/** Each step's own bound (ms); the request's deadline may end it sooner. */
export const STEP_MS = {
  /** click, write, press: the element must appear (and take the input) within this. */
  element: 5_000,
  /** wait for a selector. */
  waitSelector: 30_000,
  scroll: 5_000,
  /** (A picture over the byte cap is taken again: a page of noise takes three captures.) */
  screenshot: 30_000,
  scrape: 5_000,
  script: 10_000,
} as const;
/** What one script may return (JSON). */
export const MAX_SCRIPT_RETURN_BYTES = 64 * 1024;
/** `click` with `all`: at most this many elements. */
export const MAX_CLICKS = 100;
/** `scroll` to the bottom: rounds of "scroll, wait for more content". */
const BOTTOM_ROUNDS = 10;

export interface ActionContext {
  /** Epoch ms when the request's budget ends. */
  deadline: number;
  /** The request's budget, for messages. */
  timeoutMs: number;
  format: ImageFormat;
  /** A screenshot's byte cap (screenshot.ts). */
  screenshotMaxBytes?: number;
  /** Told what a step's screenshot cut or scaled (the answer's warnings). */
  warn?(message: string): void;
  /** A main-frame navigation the guard refused, if any. */
  refused(): TrawlError | undefined;
  /** Main-frame navigations seen so far. */
  navigations(): number;
  /** Bytes of HTML the `scrape` steps may keep in all (TRAWL_ANSWER_MAX_MB: what one answer may hold). */
  snapshotBytes?: number;
}

const quote = (s: string) => `'${s.length > 120 ? `${s.slice(0, 117)}...` : s}'`;
const firstLine = (e: unknown) =>
  String((e as Error)?.message ?? e)
    .split('\n')[0]
    .replace(/^[a-zA-Z.]+: /, '');
const isTimeout = (e: unknown) =>
  (e as Error)?.name === 'TimeoutError' || /Timeout \d+ms exceeded/.test(String((e as Error)?.message));

/** Scrolls to the bottom; true when the page grew within ~300 ms (more content was loaded). */
const SCROLL_TO_BOTTOM = `(async () => {
  const height = () => document.documentElement.scrollHeight;
  const before = height();
  window.scrollTo(0, before);
  for (let t = 0; t < 10; t++) {
    await new Promise((r) => setTimeout(r, 30));
    if (height() > before) return true;
  }
  return false;
})()`;

/** Runs the steps in order; the first that cannot be done throws. */
export async function runActions(page: Page, actions: Action[], ctx: ActionContext): Promise<ActionOutput> {
  const out: ActionOutput = { screenshots: [], scrapes: [], javascriptReturns: [] };
  try {
    for (let i = 0; i < actions.length; i++) {
      const step = new Step(page, i, ctx);
      await step.run(actions[i], out);
      const refused = ctx.refused();
      if (refused) throw refused;
    }
  } catch (e) {
    // The caller's steps ran in our browser (a script may have sent the page anywhere before
    // it threw): the failure is charged as the work it was (API.md: actions).
    throw isTrawlError(e) ? e.keepCredit() : e;
  }
  return out;
}

class Step {
  readonly #started = Date.now();

  constructor(
    private readonly page: Page,
    private readonly index: number,
    private readonly ctx: ActionContext,
  ) {}

  /** Time this step may still take under `limit`, or a timeout when the request's budget is gone. */
  #bound(limit: number): number {
    const left = this.ctx.deadline - Date.now();
    const own = limit - (Date.now() - this.#started);
    if (left <= 0) throw this.#budgetGone();
    return Math.max(1, Math.min(left, own));
  }

  /** Whether the request's deadline (rather than the step's own bound) is what ended a wait. */
  #budgetCut(limit: number): boolean {
    return this.#started + limit > this.ctx.deadline;
  }

  #budgetGone(): TrawlError {
    return timeoutError(
      `actions[${this.index}]: the request's time budget (timeout_ms ${this.ctx.timeoutMs}) ran out before this step was done`,
    );
  }

  failed(detail: string, cause?: unknown): TrawlError {
    return new TrawlError('action_failed', `actions[${this.index}]: ${detail}`, { cause, retryable: false });
  }

  /** The error for a wait that ran out: the step's own (action_failed) or the request's (timeout). */
  #ranOut(limit: number, detail: string, cause: unknown): TrawlError {
    if (this.#budgetCut(limit)) return this.#budgetGone();
    return this.failed(detail, cause);
  }

  async run(a: Action, out: ActionOutput): Promise<void> {
    switch (a.type) {
      case 'wait':
        return a.selector !== undefined ? this.#waitFor(a.selector) : this.#sleep(a.milliseconds);
      case 'click':
        return this.#click(a.selector, a.all ?? false);
      case 'write':
        return this.#write(a.text, a.selector);
      case 'press':
        return this.#press(a.key);
      case 'scroll':
        return this.#scroll(a.direction, a.amount);
      case 'screenshot':
        out.screenshots.push(await this.#screenshot(a.full_page ?? false));
        return;
      case 'scrape':
        out.scrapes.push(this.#kept(await this.#scrape(), out));
        return;
      case 'execute_javascript':
        out.javascriptReturns.push(await this.#script(a.script));
        return;
    }
  }

  async #sleep(ms: number): Promise<void> {
    // A wait longer than what is left of the budget cannot end in time: said now, not after it.
    if (ms > this.ctx.deadline - Date.now()) throw this.#budgetGone();
    await this.page.waitForTimeout(ms);
  }

  /** Waits until an element matches: its absence is the step's failure. */
  async #element(selector: string, limit: number, state: 'attached' | 'visible' = 'attached') {
    const locator = this.page.locator(selector);
    try {
      await locator.first().waitFor({ state, timeout: this.#bound(limit) });
    } catch (e) {
      if (e instanceof TrawlError) throw e;
      if (!isTimeout(e))
        throw this.failed(`${quote(selector)} is not a selector the browser can use (${firstLine(e)})`, e);
      const matched = await locator.count().catch(() => 0);
      throw this.#ranOut(
        limit,
        matched
          ? `no element matching ${quote(selector)} became visible within ${limit} ms`
          : `no element matches ${quote(selector)} within ${limit} ms`,
        e,
      );
    }
    return locator;
  }

  async #waitFor(selector: string): Promise<void> {
    await this.#element(selector, STEP_MS.waitSelector, 'visible');
  }

  /** Why an element could not be used within the step's bound: none matches, or those that match would not take it. */
  async #unusable(selector: string, limit: number, what: string, e: unknown): Promise<TrawlError> {
    if (e instanceof TrawlError) return e;
    if (!isTimeout(e)) {
      if (/selector|Unexpected token|parsing/i.test(String((e as Error).message)))
        return this.failed(`${quote(selector)} is not a selector the browser can use (${firstLine(e)})`, e);
      return this.failed(`could not ${what} ${quote(selector)} (${firstLine(e)})`, e);
    }
    const matched = await this.page
      .locator(selector)
      .count()
      .catch(() => 0);
    return this.#ranOut(
      limit,
      matched
        ? `the element matching ${quote(selector)} could not be ${what === 'click' ? 'clicked' : 'focused'} within ${limit} ms (hidden, disabled or covered by another element)`
        : `no element matches ${quote(selector)} within ${limit} ms`,
      e,
    );
  }

  async #click(selector: string, all: boolean): Promise<void> {
    const limit = STEP_MS.element;
    await this.#input(async () => {
      if (!all) {
        // Playwright's click waits for the element to appear and to take the click: one round trip when it is there.
        const e = await this.page
          .locator(selector)
          .first()
          .click({ timeout: this.#bound(limit) })
          .then(
            () => undefined,
            (err: unknown) => err,
          );
        if (e) throw await this.#unusable(selector, limit, 'click', e);
        return;
      }
      const locator = await this.#element(selector, limit);
      const n = Math.min(await locator.count(), MAX_CLICKS);
      let clicked = 0;
      for (let k = 0; k < n; k++) {
        // Hidden ones are skipped quickly; the step's bound holds for them all.
        const ok = await locator
          .nth(k)
          .click({ timeout: Math.min(1000, this.#bound(limit)) })
          .then(
            () => true,
            () => false,
          );
        if (ok) clicked++;
      }
      if (!clicked)
        throw this.#ranOut(
          limit,
          `none of the ${n} elements matching ${quote(selector)} could be clicked within ${limit} ms`,
          undefined,
        );
    }, limit);
  }

  /**
   * Listens for the main frame's next load (or its navigation failing) from before an input, so
   * a navigation the input starts is waited for even when its page loads at once.
   */
  #watchLoad(): { loaded: Promise<void>; stop(): void } {
    let done!: () => void;
    const loaded = new Promise<void>((r) => (done = r));
    const main = this.page.mainFrame();
    const onFail = (r: { isNavigationRequest(): boolean; frame(): unknown }) => {
      if (r.isNavigationRequest() && r.frame() === main) done();
    };
    this.page.on('load', done);
    this.page.on('requestfailed', onFail);
    return {
      loaded,
      stop: () => {
        this.page.off('load', done);
        this.page.off('requestfailed', onFail);
      },
    };
  }

  /** Runs an input (click, key); when it started a main-frame navigation, waits for the new page to load (within the step's bound). */
  async #input(work: () => Promise<void>, limit: number): Promise<void> {
    const before = this.ctx.navigations();
    const watch = this.#watchLoad();
    try {
      await work();
      // One round trip to the page: its handlers of the input have run, so a navigation they start is under way.
      await this.page.evaluate(() => 0).catch(() => undefined);
      if (this.ctx.navigations() === before) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([watch.loaded, new Promise((r) => (timer = setTimeout(r, this.#bound(limit))))]);
      clearTimeout(timer);
    } finally {
      watch.stop();
    }
  }

  async #write(text: string, selector?: string): Promise<void> {
    const limit = STEP_MS.element;
    if (selector !== undefined) {
      const e = await this.page
        .locator(selector)
        .first()
        .focus({ timeout: this.#bound(limit) })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      if (e) throw await this.#unusable(selector, limit, 'focus', e);
    }
    // Key by key, so pages that listen for keys (suggestions, validation) see typing.
    await this.#bounded(
      this.page.keyboard.type(text),
      limit,
      `typing ${text.length} characters took more than ${limit} ms`,
    );
  }

  async #press(key: string): Promise<void> {
    const limit = STEP_MS.element;
    await this.#input(async () => {
      await this.#bounded(
        this.page.keyboard.press(key),
        limit,
        `pressing ${quote(key)} took more than ${limit} ms`,
      ).catch((e) => {
        if (e instanceof TrawlError) throw e;
        throw this.failed(
          /Unknown key/i.test(String((e as Error).message))
            ? `unknown key ${quote(key)}; use key names such as Enter, Tab, Escape, ArrowDown, PageDown, a or Control+a`
            : `could not press ${quote(key)} (${firstLine(e)})`,
          e,
        );
      });
    }, limit);
  }

  async #scroll(direction: 'down' | 'up', amount: number | 'bottom' | undefined): Promise<void> {
    const limit = STEP_MS.scroll;
    const sign = direction === 'up' ? -1 : 1;
    if (amount !== 'bottom') {
      const by = `window.scrollBy(0, ${sign} * ${amount ?? 'window.innerHeight'})`;
      await this.#bounded(this.page.evaluate(by), limit, `scrolling took more than ${limit} ms`);
      return;
    }
    if (direction === 'up') {
      await this.#bounded(this.page.evaluate('window.scrollTo(0, 0)'), limit, `scrolling took more than ${limit} ms`);
      return;
    }
    // To the bottom, and again while the page grows (infinite lists), a few rounds within the bound.
    for (let round = 0; round < BOTTOM_ROUNDS && this.#started + limit > Date.now(); round++) {
      const grew = await this.#bounded(
        this.page.evaluate(SCROLL_TO_BOTTOM) as Promise<boolean>,
        limit,
        `scrolling to the bottom took more than ${limit} ms`,
      ).catch((e) => {
        if (e instanceof TrawlError && e.code === 'timeout') throw e;
        return false;
      });
      if (!grew) return;
    }
  }

  async #screenshot(fullPage: boolean): Promise<Buffer> {
    const limit = STEP_MS.screenshot;
    const shot = await capture(
      this.page,
      { fullPage, format: this.ctx.format },
      this.#bound(limit),
      this.ctx.screenshotMaxBytes,
    ).catch((e) => {
      throw isTimeout(e)
        ? this.#ranOut(limit, `the screenshot took more than ${limit} ms`, e)
        : this.failed(`could not take the screenshot (${firstLine(e)})`, e);
    });
    if (shot.note) this.ctx.warn?.(`actions[${this.index}]: ${shot.note}`);
    return shot.bytes;
  }

  async #scrape(): Promise<{ url: string; html: string }> {
    const limit = STEP_MS.scrape;
    const html = await this.#bounded(this.page.content(), limit, `reading the page took more than ${limit} ms`);
    return { url: this.page.url(), html };
  }

  /**
   * A snapshot, if the snapshots so far and it fit in what one answer may hold: 49 steps of a
   * 1.5 MB page made a 75 MB answer (and ~480 MB of memory) before there was a bound.
   */
  #kept(snapshot: { url: string; html: string }, out: ActionOutput): { url: string; html: string } {
    const cap = this.ctx.snapshotBytes ?? Infinity;
    const bytes = (out.scrapedBytes ?? 0) + Buffer.byteLength(snapshot.html);
    if (bytes <= cap) {
      out.scrapedBytes = bytes;
      return snapshot;
    }
    const mib = (n: number) => `${n % 2 ** 20 ? (n / 2 ** 20).toFixed(1) : n / 2 ** 20} MiB`;
    throw this.failed(
      `the page's HTML at this step and the earlier scrape steps comes to ${mib(bytes)}, more than the ${mib(cap)} one answer may hold (TRAWL_ANSWER_MAX_MB); take fewer scrape steps`,
    );
  }

  async #script(script: string): Promise<unknown> {
    const limit = STEP_MS.script;
    // The body of an async function; its value comes back as JSON text (so its size can be checked).
    // Evaluated as an expression through the DevTools protocol: the page's CSP does not apply.
    const expression = `(async () => {\n${script}\n})().then((v) => { let s; try { s = JSON.stringify(v); } catch (e) { throw new Error('TRAWL_NOT_JSON: ' + e.message); } return s === undefined ? 'null' : s; })`;
    let json: string;
    try {
      json = await this.#bounded(
        this.page.evaluate(expression) as Promise<string>,
        limit,
        `the script did not finish within ${limit} ms`,
      );
    } catch (e) {
      if (e instanceof TrawlError) throw e;
      const m = firstLine(e);
      if (m.includes('TRAWL_NOT_JSON'))
        throw this.failed(
          `the script's return value is not JSON-serialisable (${m.replace(/.*TRAWL_NOT_JSON: /, '')})`,
          e,
        );
      throw this.failed(`the script threw: ${m.slice(0, 300)}`, e);
    }
    if (Buffer.byteLength(json) > MAX_SCRIPT_RETURN_BYTES)
      throw this.failed(
        `the script returned ${Math.round(Buffer.byteLength(json) / 1024)} KiB of JSON; at most 64 KiB may be returned`,
      );
    return JSON.parse(json);
  }

  /** `work`, or the step's failure when it takes longer than the step's bound. */
  async #bounded<T>(work: Promise<T>, limit: number, detail: string): Promise<T> {
    const ms = this.#bound(limit);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.#ranOut(limit, detail, undefined)), ms);
    });
    work.catch(() => undefined);
    try {
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
