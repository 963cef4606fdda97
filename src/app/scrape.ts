/**
 * A page scraped for an account, as /v1/scrape, /firecrawl scrape, the dashboard's playground and
 * the CLI ask for it: the engine's options built from the request's page options in one place,
 * and the free-answer rule (an answer with nothing at all in it costs nothing) in one place.
 */
import { scrape, type Format, type ScrapeResult } from '../engine/index.js';
import { FREE_WARNING, nothingCameBack, type ScrapeOptions } from '../engine/scrape.js';
import { engineScrapeOptions, type PageRequest } from '../contract/page-options.js';
import { TrawlError } from '../errors.js';
import { chargedWork } from './billing.js';
import type { AppContext } from './context.js';
import { scrapeStores } from './stores.js';
import { accounts } from '../store/index.js';
import { creditsCharged } from '../metrics.js';

/** Who asks and where the answer's files are reachable (`base`), and the work's signal. */
export interface Asker {
  accountId: string;
  base: string;
  signal?: AbortSignal;
}

/** The engine's scrape options for a page request: the account's file sink and cache view added. */
export function scrapeOptionsFor(ctx: AppContext, who: Asker, p: PageRequest): ScrapeOptions {
  return {
    ...engineScrapeOptions(p),
    ...scrapeStores(ctx, who.accountId, who.base, p.max_age),
    signal: who.signal,
    llm: ctx.engine.llm,
  };
}

/**
 * The free-answer rule: an answer with nothing at all in it (a page without text, after every
 * fallback) is given without charge, and says so in its warnings.
 */
export const isFreeAnswer = (r: ScrapeResult): boolean => nothingCameBack(r);

/** The answer's warnings, with the free answer's own when it is one. */
export function warningsOf(r: ScrapeResult, free = isFreeAnswer(r)): string[] | undefined {
  return free ? [...(r.warnings ?? []), FREE_WARNING] : r.warnings;
}

/**
 * One page scraped for an account and charged by the free-answer rule through `chargedWork` (one
 * credit reserved first, 402 when there is none; given back on failure, for a free answer, an
 * answer over the cap, or an asker gone before it was ready): the dashboard's way (the API's is
 * withCredit, server/plugins/api-scope.ts, over the same gate). `also`: document formats the
 * surface adds for its own view (the playground's html); the rule looks only at what was asked for.
 */
export async function scrapeCharged(
  ctx: AppContext,
  who: Asker & { signal: AbortSignal },
  p: PageRequest,
  also: Format[] = [],
): Promise<{ result: ScrapeResult; credits: number }> {
  const asked = p.formats ?? ['markdown'];
  const added = also.filter((f) => !asked.includes(f));
  const { value, credits } = await chargedWork(
    ctx,
    who.accountId,
    (signal, engine) =>
      scrape(engine, scrapeOptionsFor(ctx, { ...who, signal }, { ...p, formats: [...asked, ...added] })),
    who.signal,
    (r) => isFreeAnswer(without(r, added)),
  );
  return { result: value, credits };
}

/** The result without the fields of formats nobody asked for. */
function without(r: ScrapeResult, formats: Format[]): ScrapeResult {
  if (!formats.length) return r;
  const copy: Record<string, unknown> = { ...r };
  for (const f of formats) delete copy[f];
  return copy as unknown as ScrapeResult;
}

/**
 * `proxy: "stealth"` on a server without stealth proxies is the request's fault: 400 before a
 * credit is looked at (the contract's order), not a failure found during the work.
 */
export function checkProxyTier(ctx: AppContext, proxy: string | undefined): void {
  if (proxy === 'stealth' && !ctx.engine.http.stealthAvailable)
    throw new TrawlError(
      'invalid_request',
      'proxy: "stealth" needs stealth proxies, and this server has none configured (TRAWL_STEALTH_PROXY_URLS); use "basic" or "auto"',
    );
}

/** What a page through the stealth proxy tier costs beyond the page's own credit (issue 42: 5 in all, as Firecrawl). */
export const STEALTH_SURCHARGE = 4;

/**
 * The stealth tier's surcharge for one scrape: reserved (atomically, like every credit) when the
 * ladder first reaches the tier, kept when the answer is charged, given back otherwise. `settle`
 * says how many credits it kept.
 */
export function stealthSurcharge(ctx: AppContext, accountId: string) {
  let taken = false;
  return {
    gate: {
      async take(): Promise<boolean> {
        if (taken) return true;
        taken = await accounts.reserveCredit(ctx.store.db, accountId, STEALTH_SURCHARGE);
        return taken;
      },
    },
    /** Keep the surcharge when the answer was charged and came through the stealth tier; else give it back. */
    async settle(keep: boolean): Promise<number> {
      if (!taken) return 0;
      taken = false;
      if (keep) {
        creditsCharged.inc({ by: 'request' }, STEALTH_SURCHARGE);
        return STEALTH_SURCHARGE;
      }
      await accounts.refundCredit(ctx.store.db, accountId, STEALTH_SURCHARGE);
      return 0;
    },
  };
}

/**
 * A charged scrape with the stealth tier's surcharge around it, for every surface that scrapes one
 * page (v1, Firecrawl): `charge` runs the work through the surface's credit gate, passing `gate`
 * to the engine (the surcharge is taken through it), and says what it charged (0 or 1). The
 * surcharge is kept when the answer was charged and came through the stealth tier; any failure
 * gives it back (even one that keeps its credit because the caller's steps ran: the surcharge is
 * the price of a page through the tier). Returns the work's value and all the credits it cost.
 */
export async function withStealth<T>(
  ctx: AppContext,
  accountId: string,
  charge: (gate: NonNullable<ScrapeOptions['stealthGate']>) => Promise<{ value: T; credits: number }>,
  tierOf: (value: T) => string | undefined,
): Promise<{ value: T; credits: number }> {
  const stealth = stealthSurcharge(ctx, accountId);
  const { value, credits } = await charge(stealth.gate).catch(async (e: unknown) => {
    await stealth.settle(false);
    throw e;
  });
  return { value, credits: credits + (await stealth.settle(credits > 0 && tierOf(value) === 'stealth')) };
}
