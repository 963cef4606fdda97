/**
 * The realms of a render beside its page (issue 42): dedicated workers, shared workers, service
 * workers, out-of-process iframes. Each reads the browser's identity too, and a fingerprinting
 * script compares it with the page's: a SharedWorker got the browser's own User-Agent
 * ("HeadlessChrome") and brands, a dedicated worker Playwright's override without brands, and
 * both a SwiftShader WebGL. The page's DevTools override and init script never reach them.
 *
 * So this holds each new one before its first script runs and gives it the render's identity:
 * two browser-level DevTools sessions auto-attach (flat) and wait for the debugger — one for shared
 * and service workers (top-level targets), one for the children of each render's page (its
 * workers and frames, `Target.autoAttachRelated`). A held target is attached to a second time
 * (non-flat: Playwright's sessions cannot address a flat child), given the User-Agent override
 * with its brands (`Network.setUserAgentOverride`) and, in a worker, the fingerprint script; then
 * the hold is released. The second session stays while the target lives (an override ends with
 * the session that set it). A target of no registered render is released untouched.
 */
import type { Browser, CDPSession } from 'playwright-core';
import type { PausedRequest, RealmRoute } from './realm-routes.js';

/** What a render's other realms are given: the override's parameters and the worker's script. */
export interface RealmSetup {
  /** `Network.setUserAgentOverride` parameters: userAgent, acceptLanguage, platform, userAgentMetadata. */
  override: Record<string, unknown>;
  workerScript: string;
  /** A remote browser: the realm's requests are paused and made by the guarded client (realm-routes.ts). */
  route?: RealmRoute;
}

interface Paused {
  requestId: string;
  request: PausedRequest;
}

interface Attached {
  sessionId: string;
  waitingForDebugger: boolean;
  targetInfo: { targetId: string; type: string; browserContextId?: string };
}

const WORKERS = new Set(['worker', 'shared_worker', 'service_worker']);
/** Popups too: a page opened by the render's page gets its identity (and, remote, its routes) before it loads. */
const HELD = new Set([...WORKERS, 'page']);
/** A held target waits at most this long for its setup (a slow answer must not stall the page). */
const SETUP_MS = 10_000;

export class RealmWarden {
  readonly #contexts = new Map<string, RealmSetup>();
  /** Targets being attached to a second time (that attach is reported like the first). */
  readonly #busy = new Set<string>();
  readonly #pending = new Map<number, () => void>();
  /** Second sessions whose requests are routed: their browser session and route. */
  readonly #routed = new Map<string, { s: CDPSession; route: RealmRoute }>();
  #ids = 0;

  private constructor(
    readonly top: CDPSession,
    readonly related: CDPSession,
  ) {
    for (const s of [top, related]) {
      s.on('Target.attachedToTarget', (e) => void this.#held(s, e as Attached));
      s.on('Target.receivedMessageFromTarget', (e: { sessionId: string; message: string }) => {
        const m = JSON.parse(e.message) as { id?: number; method?: string; params?: Paused };
        if (m.id !== undefined) this.#pending.get(m.id)?.();
        else if (m.method === 'Fetch.requestPaused' && m.params) void this.#paused(e.sessionId, m.params);
      });
      s.on('Target.detachedFromTarget', (e: { sessionId: string; targetId?: string }) => {
        if (e.targetId) this.#busy.delete(e.targetId);
        this.#routed.delete(e.sessionId);
      });
    }
  }

  /** Starts watching a browser's new shared and service workers. */
  static async start(browser: Browser): Promise<RealmWarden> {
    const top = await browser.newBrowserCDPSession();
    const related = await browser.newBrowserCDPSession();
    const warden = new RealmWarden(top, related);
    await top.send('Target.setAutoAttach', {
      autoAttach: true,
      waitForDebuggerOnStart: true,
      flatten: true,
      filter: [{ type: 'shared_worker' }, { type: 'service_worker' }, { type: 'page' }],
    });
    return warden;
  }

  /**
   * Gives a render's realms its identity: `page` is a DevTools session of its page. Returns what
   * forgets the render (when its context closes).
   */
  async watch(page: CDPSession, setup: RealmSetup): Promise<() => void> {
    const { targetInfo } = (await page.send('Target.getTargetInfo')) as {
      targetInfo: { targetId: string; browserContextId?: string };
    };
    const id = targetInfo.browserContextId;
    if (!id) return () => undefined;
    this.#contexts.set(id, setup);
    // Workers only: a held frame's navigation waited on (a refused frame never let the page load).
    await this.related.send('Target.autoAttachRelated', {
      targetId: targetInfo.targetId,
      waitForDebuggerOnStart: true,
      filter: [{ type: 'worker' }],
    });
    return () => void this.#contexts.delete(id);
  }

  /** A routed realm's request: made by the guarded client, answered to the browser. */
  async #paused(sessionId: string, p: Paused): Promise<void> {
    const routed = this.#routed.get(sessionId);
    if (!routed) return;
    const answer = await routed.route(p.request).catch(() => ({ fail: 'Failed' as const }));
    const [method, params] =
      'fulfill' in answer
        ? ['Fetch.fulfillRequest', { requestId: p.requestId, ...answer.fulfill }]
        : ['Fetch.failRequest', { requestId: p.requestId, errorReason: answer.fail }];
    const message = JSON.stringify({ id: ++this.#ids, method, params });
    await routed.s.send('Target.sendMessageToTarget', { sessionId, message }).catch(() => undefined);
  }

  async #held(s: CDPSession, e: Attached): Promise<void> {
    const t = e.targetInfo;
    // Our own second attach is reported too; a target not held (the watched page) stays attached.
    if (this.#busy.has(t.targetId) || !e.waitingForDebugger) return;
    const setup = t.browserContextId ? this.#contexts.get(t.browserContextId) : undefined;
    try {
      if (setup && HELD.has(t.type)) {
        this.#busy.add(t.targetId);
        const { sessionId } = (await s.send('Target.attachToTarget', { targetId: t.targetId, flatten: false })) as {
          sessionId: string;
        };
        const send = (method: string, params: Record<string, unknown> = {}) => {
          const id = ++this.#ids;
          // The answer, not the send, says the target has it (the hold is released after).
          const answered = new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, SETUP_MS);
            this.#pending.set(id, () => {
              clearTimeout(timer);
              resolve();
            });
          }).finally(() => this.#pending.delete(id));
          return s
            .send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) })
            .then(() => answered);
        };
        // Sent at once, answered in order: the sooner they are there, the likelier a shared worker
        // still waits (it may start before: another client's detach can release it).
        if (setup.route) this.#routed.set(sessionId, { s, route: setup.route });
        const worker = WORKERS.has(t.type);
        await Promise.all([
          send(worker ? 'Network.setUserAgentOverride' : 'Emulation.setUserAgentOverride', setup.override),
          worker ? send('Runtime.evaluate', { expression: setup.workerScript }) : undefined,
          setup.route ? send('Fetch.enable', { patterns: [{ urlPattern: '*' }] }) : undefined,
          send('Runtime.runIfWaitingForDebugger'),
        ]);
      }
    } catch {
      // A target gone while it was set up: nothing to give it.
    } finally {
      await s.send('Target.detachFromTarget', { sessionId: e.sessionId }).catch(() => undefined);
    }
  }
}
