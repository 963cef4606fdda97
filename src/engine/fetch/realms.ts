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

/** What a render's other realms are given: the override's parameters and the worker's script. */
export interface RealmSetup {
  /** `Network.setUserAgentOverride` parameters: userAgent, acceptLanguage, platform, userAgentMetadata. */
  override: Record<string, unknown>;
  workerScript: string;
}

interface Attached {
  sessionId: string;
  waitingForDebugger: boolean;
  targetInfo: { targetId: string; type: string; browserContextId?: string };
}

const WORKERS = new Set(['worker', 'shared_worker', 'service_worker']);
const HELD = WORKERS;
/** A held target waits at most this long for its setup (a slow answer must not stall the page). */
const SETUP_MS = 10_000;

export class RealmWarden {
  readonly #contexts = new Map<string, RealmSetup>();
  /** Targets being attached to a second time (that attach is reported like the first). */
  readonly #busy = new Set<string>();
  readonly #pending = new Map<number, () => void>();
  #ids = 0;

  private constructor(
    readonly top: CDPSession,
    readonly related: CDPSession,
  ) {
    for (const s of [top, related]) {
      s.on('Target.attachedToTarget', (e) => void this.#held(s, e as Attached));
      s.on('Target.receivedMessageFromTarget', (e: { message: string }) => {
        const id = (JSON.parse(e.message) as { id?: number }).id;
        if (id !== undefined) this.#pending.get(id)?.();
      });
      s.on('Target.detachedFromTarget', (e: { targetId?: string }) => {
        if (e.targetId) this.#busy.delete(e.targetId);
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
      filter: [{ type: 'shared_worker' }, { type: 'service_worker' }],
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
        await Promise.all([
          send('Network.setUserAgentOverride', setup.override),
          WORKERS.has(t.type) ? send('Runtime.evaluate', { expression: setup.workerScript }) : undefined,
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
