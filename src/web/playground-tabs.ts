/**
 * The playground's other tabs: crawl (a job, followed on the Jobs page), map, search (when the
 * service has a search provider) and extract. Each calls the use case /v1 calls (app/), charged
 * the same way, and shows its request as curl, TypeScript and Python.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../app/context.js';
import { chargedWork } from '../app/billing.js';
import { extractWork } from '../app/extract.js';
import { mapWork } from '../app/map.js';
import { searchUnavailable, searchWork } from '../app/search.js';
import { ExtractBody, MapBody, SearchBody } from '../contract/schemas.js';
import { parseBody } from '../contract/validation.js';
import type { Work } from '../app/budget.js';
import { html } from './html.js';
import type { Kit } from './kit.js';
import type { SessionInfo } from './session.js';
import { checkbox, compact, int, json, lines, renderSelect, shown, text, tick, type Posted } from './fields.js';
import { crawlForm, startCrawlFrom, started } from './job-forms.js';
import { playgroundTab } from './playground-tab.js';
import { cost, runForm } from './run.js';

const SCHEMA_HINT =
  '{"type":"object","properties":{"name":{"type":"string"},"price":{"type":"number","description":"in the page\'s currency"}},"required":["name"]}';

export function playgroundTabs(app: FastifyInstance, ctx: AppContext, kit: Kit): void {
  const { csrfField } = kit;

  /** A tab whose form runs a use case's work through the dashboard's credit gate. */
  const charged =
    <T>(
      endpoint: string,
      bodyOf: (f: Posted) => Record<string, unknown>,
      make: (body: Record<string, unknown>) => Work<T>,
    ) =>
    (f: Posted, s: SessionInfo, request: FastifyRequest) =>
      runForm(
        ctx,
        request,
        s,
        endpoint,
        () => bodyOf(f),
        (body, signal) => chargedWork(ctx, s.account.id, make(body), signal),
      );

  // --- Crawl: a job, as POST /v1/crawl with "async": true ------------------------------------
  playgroundTab(app, kit, {
    path: '/playground/crawl',
    form: (s, f) =>
      html`<p class="muted">A crawl runs as a job: it starts here and its pages are on the <a href="/jobs">Jobs page</a> as they come.</p>${crawlForm(csrfField(s), f, '/playground/crawl')}`,
    run: (f, s, request) => startCrawlFrom(ctx, request, s, f),
    show: (job) => started(job),
    apiPath: '/v1/crawl',
  });

  // --- Map ---------------------------------------------------------------------------------
  const mapRun = charged(
    'dashboard playground map',
    (f) =>
      compact({
        url: text(f, 'url'),
        limit: int(f, 'limit'),
        search: text(f, 'search'),
        use_sitemap: checkbox(f, 'use_sitemap', true),
        allow_subdomains: checkbox(f, 'allow_subdomains'),
      }),
    (b) => mapWork(parseBody(MapBody, b)),
  );
  playgroundTab(app, kit, {
    path: '/playground/map',
    form: (
      s,
      f,
    ) => html`<form class="stack wide" method="post" action="/playground/map">${csrfField(s)}<input type="hidden" name="shown" value="1">
<label for="m-url">Site URL<input id="m-url" name="url" type="url" required value="${shown(f, 'url')}" placeholder="https://example.com"></label>
<div class="row"><label for="m-limit">Limit<input id="m-limit" name="limit" inputmode="numeric" value="${shown(f, 'limit')}" placeholder="1000"></label>
<label for="m-search">Search <span class="muted">(ranks and filters the URLs)</span><input id="m-search" name="search" value="${shown(f, 'search')}" placeholder="pricing"></label></div>
<fieldset><legend>Options</legend><label class="check"><input type="checkbox" name="use_sitemap" value="true" ${tick(f, 'use_sitemap', true)}> use the sitemaps</label><label class="check"><input type="checkbox" name="allow_subdomains" value="true" ${tick(f, 'allow_subdomains')}> subdomains too</label></fieldset>
<button type="submit">Map (1 credit)</button></form>`,
    run: mapRun,
    show: (r, credits, ms) =>
      html`<h2>Result</h2><p class="muted">Cost: ${cost(credits)} · ${ms} ms · ${r.links.length} of ${r.total} URLs</p>
<div class="table-wrap" tabindex="0"><table aria-label="URLs"><thead><tr><th scope="col">URL</th><th scope="col">Title</th></tr></thead><tbody>${r.links.slice(0, 500).map((l) => html`<tr><td><a href="${l.url}" rel="noreferrer">${l.url}</a></td><td>${l.title ?? ''}</td></tr>`)}</tbody></table></div>`,
    apiPath: '/v1/map',
  });

  // --- Search ------------------------------------------------------------------------------
  const searchRun = charged(
    'dashboard playground search',
    (f) =>
      compact({
        query: text(f, 'query'),
        limit: int(f, 'limit'),
        country: text(f, 'country'),
        language: text(f, 'language'),
        scrape: checkbox(f, 'scrape', true),
      }),
    (b) => searchWork(ctx, parseBody(SearchBody, b)),
  );
  playgroundTab(app, kit, {
    path: '/playground/search',
    form: (s, f) => {
      const why = searchUnavailable(ctx);
      if (why)
        return html`<div class="notice error" role="status" data-testid="search-unavailable"><p><strong>Search is not configured on this server</strong> (${why}). The operator can set <code>SEARCH_PROVIDER</code> (searxng with <code>SEARXNG_URL</code>, brave with <code>BRAVE_API_KEY</code>, or duckduckgo) and restart; <code>POST /v1/search</code> answers the same until then.</p></div>`;
      return html`<form class="stack wide" method="post" action="/playground/search">${csrfField(s)}<input type="hidden" name="shown" value="1">
<label for="s-query">Query<input id="s-query" name="query" required value="${shown(f, 'query')}" placeholder="open source web scraping api"></label>
<div class="row"><label for="s-limit">Results <span class="muted">(1–20)</span><input id="s-limit" name="limit" inputmode="numeric" value="${shown(f, 'limit')}" placeholder="5"></label>
<label for="s-country">Country<input id="s-country" name="country" value="${shown(f, 'country')}" placeholder="US"></label>
<label for="s-lang">Language<input id="s-lang" name="language" value="${shown(f, 'language')}" placeholder="en"></label></div>
<fieldset><legend>Options</legend><label class="check"><input type="checkbox" name="scrape" value="true" ${tick(f, 'scrape', true)}> read each result's page</label></fieldset>
<button type="submit">Search (1 credit)</button></form>`;
    },
    run: searchRun,
    show: (r, credits, ms) =>
      html`<h2>Result</h2><p class="muted">Cost: ${cost(credits)} · ${ms} ms · ${r.results.length} results for “${r.query}”</p>
<ol class="results">${r.results.map((x) => html`<li><a href="${x.url}" rel="noreferrer">${x.title || x.url}</a> <span class="muted">${x.source}</span><p>${x.snippet}</p></li>`)}</ol>`,
    apiPath: '/v1/search',
  });

  // --- Extract -----------------------------------------------------------------------------
  const extractRun = charged(
    'dashboard playground extract',
    (f) =>
      compact({
        urls: lines(f, 'urls'),
        schema: json(f, 'schema'),
        prompt: text(f, 'prompt'),
        render: text(f, 'render'),
      }),
    (b) => extractWork(ctx, parseBody(ExtractBody, b)),
  );
  playgroundTab(app, kit, {
    path: '/playground/extract',
    form: (
      s,
      f,
    ) => html`<form class="stack wide" method="post" action="/playground/extract">${csrfField(s)}<input type="hidden" name="shown" value="1">
<label for="e-urls">URLs <span class="muted">(one a line, 1–20; their answers are merged)</span><textarea id="e-urls" name="urls" rows="3" required placeholder="https://example.com/product/1">${shown(f, 'urls')}</textarea></label>
<label for="e-schema">JSON Schema<textarea id="e-schema" name="schema" rows="5" placeholder='${SCHEMA_HINT}'>${shown(f, 'schema')}</textarea></label>
<label for="e-prompt">Prompt <span class="muted">(${ctx.engine.llm ? 'alone, or as a hint beside the schema' : 'a hint beside the schema: this server has no LLM to read a prompt alone'})</span><input id="e-prompt" name="prompt" value="${shown(f, 'prompt')}" placeholder="The product's name and price"></label>
<div class="row">${renderSelect(f, 'e-render')}</div>
<button type="submit">Extract (1 credit)</button></form>`,
    run: extractRun,
    show: (r, credits, ms) =>
      html`<h2>Result</h2><p class="muted">Cost: ${cost(credits)} · ${ms} ms</p><h3>Data</h3><pre class="secret" data-testid="json">${JSON.stringify(r.data, null, 2)}</pre>
<h3>Per URL</h3><pre class="secret scroll">${JSON.stringify(r.results, null, 2)}</pre>`,
    apiPath: '/v1/extract',
  });
}
