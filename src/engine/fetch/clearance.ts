/**
 * Clearance cookies kept for one job (issue 42): a JS challenge a render cleared (its script set
 * a cookie and reloaded) is not solved again on the next page of the same crawl or batch on that
 * host — the cookie it set goes with them, on the HTTP path and in the browser alike. A jar is
 * made by the job that runs the pages and dies with it: no other job or account ever sees it.
 */
import type { Cookie, PageSetup } from './emulation.js';

/** At most this many cookies kept per host (a challenge sets one or two). */
const MAX_PER_HOST = 20;

export class ClearanceJar {
  readonly #byHost = new Map<string, Cookie[]>();

  /** The cookies a cleared render of `url` holds for its host (host-only: they go to that host alone). */
  keep(url: string, cookies: { name: string; value: string }[]): void {
    if (!cookies.length) return;
    const host = new URL(url).hostname.toLowerCase();
    const kept = new Map((this.#byHost.get(host) ?? []).map((c) => [c.name, c]));
    for (const c of cookies) kept.set(c.name, { name: c.name, value: c.value });
    this.#byHost.set(host, [...kept.values()].slice(-MAX_PER_HOST));
  }

  /** The page's setup with the host's kept cookies added (the caller's own win on a name clash). */
  setupFor(url: string, setup: PageSetup | undefined): PageSetup | undefined {
    const kept = this.#byHost.get(new URL(url).hostname.toLowerCase());
    if (!kept?.length) return setup;
    const own = new Set((setup?.cookies ?? []).map((c) => c.name));
    return { ...setup, cookies: [...(setup?.cookies ?? []), ...kept.filter((c) => !own.has(c.name))] };
  }

  /** Hosts with kept cookies (tests, metrics). */
  get hosts(): number {
    return this.#byHost.size;
  }
}
