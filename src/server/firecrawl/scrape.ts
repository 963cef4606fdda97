/** POST /firecrawl/{v1,v2}/scrape: one page through Trawl's scrape, answered as Firecrawl's Document. */
import type { FastifyInstance } from 'fastify';
import { scrape } from '../../engine/index.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { checkPageOptions } from '../../contract/page-options.js';
import { checkProxyTier, isFreeAnswer, scrapeOptionsFor, warningsOf, withStealth } from '../../app/scrape.js';
import { publicBase } from '../../app/stores.js';
import { withBrowserSession } from '../../app/browser-sessions.js';
import { sessionName } from '../../contract/schemas.js';
import { parseBody } from '../../contract/validation.js';
import { z } from 'zod';
import { documentOfScrape } from '../../contract/firecrawl/document.js';
import { bodyOf, checkOptions, httpUrlAt } from '../../contract/firecrawl/options.js';
import { HIDDEN } from './shared.js';
import {
  engineFormats,
  pageOptionsOf,
  planScrape,
  scrapeOptionTable,
  type Version,
} from '../../contract/firecrawl/scrape-options.js';
import { summarize } from './summary.js';
import { withinBudget } from '../budget.js';

export function scrapeRoutes(app: FastifyInstance, ctx: ServerContext, version: Version): void {
  app.post(`/${version}/scrape`, HIDDEN, async (request, reply) => {
    const o = checkOptions(bodyOf(request.body), { url: 'map', ...scrapeOptionTable('scrape', version) });
    const url = httpUrlAt(o.url, 'url');
    const plan = planScrape(o, { version, use: 'scrape', llm: !!ctx.engine.llm });
    const page = { url, formats: engineFormats(plan), timeout_ms: plan.timeoutMs, ...pageOptionsOf(plan) };
    // (Waits were checked against Firecrawl's timeout; these are the checks of several fields at once.)
    checkPageOptions(page);
    checkProxyTier(ctx, page.proxy);
    const who = { accountId: request.auth!.accountId, base: publicBase(ctx, request) };
    const session =
      o.session === undefined
        ? undefined
        : parseBody(z.strictObject({ session: sessionName }), { session: o.session }).session;
    const started = Date.now();
    // The stealth proxy tier's surcharge (issue 42) is taken only if the ladder reaches it.
    const {
      value: { result, summary },
      credits,
    } = await withStealth(
      ctx,
      who.accountId,
      async (stealthGate) => {
        const value = await withCredit(
          ctx,
          request,
          reply,
          withinBudget(plan.timeoutMs ?? 30_000, async (signal, engine) => {
            // Firecrawl's waitFor is time in a browser.
            const options = {
              ...scrapeOptionsFor(
                ctx,
                { ...who, signal },
                { ...page, schema: plan.compiled, prompt: plan.prompt, only_main_content: plan.onlyMainContent },
              ),
              stealthGate,
            };
            const result = session
              ? await withBrowserSession(
                  ctx,
                  who.accountId,
                  session,
                  url,
                  (jar) => scrape(engine, { ...options, session: jar }),
                  signal,
                )
              : await scrape(engine, options);
            const budget = (plan.timeoutMs ?? 30_000) - (Date.now() - started);
            const summary = plan.fields.includes('summary')
              ? await summarize(
                  ctx.engine.llm!,
                  { url: result.url, markdown: result.markdown ?? '' },
                  signal,
                  Math.max(1000, budget),
                )
              : undefined;
            return { result, summary };
          }),
          // The same free-answer rule as /v1/scrape: nothing at all came back, nothing charged.
          (v) => isFreeAnswer(v.result),
        );
        return { value, credits: request.creditsCharged };
      },
      (v) => v.result.metadata.proxy_used,
    );
    request.creditsCharged = credits;
    // Firecrawl's `warning` says why an answer is empty; here also that it cost nothing (as /v1).
    const data = documentOfScrape({ ...result, warnings: warningsOf(result) }, url, plan.fields, summary);
    // Firecrawl's Document says what it cost.
    data.metadata = { ...data.metadata, creditsUsed: credits };
    return { success: true, data };
  });
}
