/**
 * What a fetch holds while it runs: one of its owner's page slots, and admission under the
 * page-bytes budget (large-pages.ts). Every wait comes out of the page's own time budget.
 */
import { timeoutError } from '../../errors.js';
import type { LargePageGate, PageLease } from './large-pages.js';
import type { FetchSlots } from './owner-slots.js';
import type { FetchPageOptions, Fetchers } from './page-model.js';

/**
 * What a fetch outside fetchPage (a crawl's sitemap files) holds while it runs: one of its owner's
 * slots and admission under the page-bytes budget, with a lease that makes a body past the
 * large-page size wait for a large-page slot. Waits come out of `timeoutMs`; call `release` when
 * the body has been dealt with.
 */
export async function holdForFetch(
  fetchers: Pick<Fetchers, 'slots' | 'largePages'>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ lease?: PageLease; timeoutMs: number; release(): void }> {
  const started = Date.now();
  const give = fetchers.slots ? await ownSlot(fetchers.slots, timeoutMs, signal) : undefined;
  try {
    const gate = fetchers.largePages;
    const left = () => Math.max(1, timeoutMs - (Date.now() - started));
    const lease = gate ? (gate.tryAdmit() ?? (await admitted(gate, { timeoutMs: left(), signal }))) : undefined;
    return {
      lease,
      timeoutMs: left(),
      release: () => {
        lease?.release();
        give?.();
      },
    };
  } catch (e) {
    give?.();
    throw e;
  }
}

export async function ownSlot(slots: FetchSlots, timeoutMs: number, signal?: AbortSignal): Promise<() => void> {
  const limit = AbortSignal.timeout(timeoutMs);
  try {
    return await slots.acquire(signal ? AbortSignal.any([signal, limit]) : limit);
  } catch (e) {
    if (limit.aborted && !signal?.aborted) {
      throw timeoutError(
        `this account already has ${slots.limit} pages being fetched at once (TRAWL_ACCOUNT_CONCURRENCY); this page waited ${timeoutMs} ms for one of them to finish`,
      );
    }
    throw e;
  }
}

/** A lease from the gate, waiting at most the request's time budget. */
export async function admitted(gate: LargePageGate, options: FetchPageOptions): Promise<PageLease> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const limit = AbortSignal.timeout(timeoutMs);
  try {
    return await gate.admit(options.signal ? AbortSignal.any([options.signal, limit]) : limit);
  } catch (e) {
    if (limit.aborted) throw timeoutError(`the page waited ${timeoutMs} ms for memory held by other pages to be freed`);
    throw e;
  }
}
