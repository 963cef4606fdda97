/** POST /firecrawl/{v1,v2}/scrape: one page through Trawl's scrape, answered as Firecrawl's Document. */
import type { FastifyInstance } from 'fastify';
import { scrape } from '../../engine/index.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { checkPageOptions, enginePageOptions, publicBase, scrapeStores } from '../scrape-options.js';
import { documentOfScrape } from './document.js';
import { bodyOf, checkOptions, httpUrlAt } from './options.js';
import { HIDDEN } from './shared.js';
import { engineFormats, pageOptionsOf, planScrape, scrapeOptionTable, type Version } from './scrape-options.js';
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
    const stores = scrapeStores(ctx, request.auth!.accountId, publicBase(ctx, request), page.max_age);
    const started = Date.now();
    const { result, summary } = await withCredit(
      ctx,
      request,
      reply,
      withinBudget(plan.timeoutMs ?? 30_000, async (signal, engine) => {
        const result = await scrape(engine, {
          ...enginePageOptions(page),
          ...stores,
          url,
          schema: plan.compiled,
          prompt: plan.prompt,
          onlyMainContent: plan.onlyMainContent,
          // Firecrawl's waitFor is time in a browser.
          render: page.render,
          waitFor: page.wait_for,
          timeoutMs: plan.timeoutMs,
          pdf: page.pdf ? { maxPages: page.pdf.max_pages } : undefined,
          actionScrapeHtml: page.action_scrape_html,
          signal,
          llm: ctx.engine.llm,
        });
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
    );
    return { success: true, data: documentOfScrape(result, url, plan.fields, summary) };
  });
}
