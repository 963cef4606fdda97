/**
 * The playground: try the API from the dashboard, with the account's credits and the API's own
 * checks, one tab per endpoint (scrape here; crawl, map, search and extract in playground-tabs.ts).
 * Each tab calls the use case /v1 calls (app/), so the credit and the free-answer rule are the
 * same, and shows the request it made as curl, TypeScript and Python to copy (a placeholder key).
 *
 * Scrape shows the markdown (rendered, as the page's cleaned HTML in a sandboxed frame that runs
 * no script, and raw), the JSON with its sources, the screenshot, and what it cost.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ScrapeFormat, ScrapeResult } from '../engine/index.js';
import type { AppContext } from '../app/context.js';
import { scrapeCharged, warningsOf } from '../app/scrape.js';
import { publicBase } from '../app/stores.js';
import { ScrapeBody } from '../contract/schemas.js';
import { checkPageOptions } from '../contract/page-options.js';
import { formatsAndSchema, parseBody } from '../contract/validation.js';
import { html, raw } from './html.js';
import type { Kit } from './kit.js';
import type { SessionInfo } from './session.js';
import { checkbox, compact, int, json, many, renderSelect, shown, text, tick, waitFor, type Posted } from './fields.js';
import { playgroundTab } from './playground-tab.js';
import { cost, runForm } from './run.js';

const FORMAT_CHOICES = ['markdown', 'json', 'html', 'links', 'screenshot'] as const;

const JSON_SCHEMA_HINT =
  '{"type":"object","properties":{"title":{"type":"string"},"price":{"type":"number"}},"required":["title"]}';

/** The scrape request a form makes, as the API takes it. */
function scrapeBodyOf(f: Posted): Record<string, unknown> {
  return compact({
    url: text(f, 'url'),
    formats: many(f, 'formats'),
    only_main_content: checkbox(f, 'only_main_content', true),
    render: text(f, 'render'),
    wait_for: waitFor(f),
    mobile: checkbox(f, 'mobile'),
    schema: json(f, 'schema'),
    prompt: text(f, 'prompt'),
    actions: json(f, 'actions'),
    timeout_ms: int(f, 'timeout_ms'),
  });
}

export function playgroundPage(app: FastifyInstance, ctx: AppContext, kit: Kit): void {
  const { csrfField } = kit;
  const formHtml = (s: SessionInfo, f: Posted) => {
    const chosen = new Set([f.formats ?? 'markdown'].flat());
    return html`<form class="stack wide" method="post" action="/playground">${csrfField(s)}<input type="hidden" name="shown" value="1">
<label for="p-url">URL<input id="p-url" name="url" type="url" required value="${shown(f, 'url')}" placeholder="https://example.com/article"></label>
<fieldset><legend>Formats</legend>${FORMAT_CHOICES.map((c) => html`<label class="check"><input type="checkbox" name="formats" value="${c}" ${raw(chosen.has(c) ? 'checked' : '')}> ${c}</label>`)}</fieldset>
<fieldset><legend>Options</legend><label class="check"><input type="checkbox" name="only_main_content" value="true" ${tick(f, 'only_main_content', true)}> only the main content</label><label class="check"><input type="checkbox" name="mobile" value="true" ${tick(f, 'mobile')}> as a phone (mobile)</label></fieldset>
<div class="row">${renderSelect(f, 'p-render')}
<label for="p-wait">Wait for <span class="muted">(ms, or a CSS selector; browser)</span><input id="p-wait" name="wait_for" value="${shown(f, 'wait_for')}" placeholder="1000 or #content"></label>
<label for="p-timeout">Timeout (ms)<input id="p-timeout" name="timeout_ms" inputmode="numeric" value="${shown(f, 'timeout_ms')}" placeholder="30000"></label></div>
<label for="p-schema">JSON Schema <span class="muted">(for the json format; the short form {"title":"string"} works too)</span><textarea id="p-schema" name="schema" rows="4" placeholder='${JSON_SCHEMA_HINT}'>${shown(f, 'schema')}</textarea></label>
<label for="p-prompt">Prompt <span class="muted">(optional: a hint for the LLM, or json without a schema when the server has an LLM)</span><input id="p-prompt" name="prompt" value="${shown(f, 'prompt')}" placeholder="The product's name and price"></label>
<label for="p-actions">Actions <span class="muted">(JSON array, run in the browser before reading)</span><textarea id="p-actions" name="actions" rows="3" placeholder='[{"type":"click","selector":"#more"},{"type":"wait","milliseconds":500}]'>${shown(f, 'actions')}</textarea></label>
<button type="submit">Scrape (1 credit)</button></form>`;
  };

  const run = (f: Posted, s: SessionInfo, request: FastifyRequest) =>
    runForm(
      ctx,
      request,
      s,
      'dashboard playground',
      () => scrapeBodyOf(f),
      async (body, signal) => {
        const parsed = parseBody(ScrapeBody, body);
        const { schema } = formatsAndSchema(parsed.formats, parsed.schema, {
          prompt: parsed.prompt,
          hasLlm: !!ctx.engine.llm,
        });
        checkPageOptions(parsed);
        // The cleaned HTML is always asked for: it is what the "rendered" view shows. An answer
        // with nothing in it is free, as from /v1/scrape.
        const { result, credits } = await scrapeCharged(
          ctx,
          { accountId: s.account.id, base: publicBase(ctx, request), signal },
          { ...parsed, formats: (parsed.formats as ScrapeFormat[] | undefined) ?? ['markdown'], schema },
          ['html'],
        );
        return { value: result, credits };
      },
    );

  const show = (result: ScrapeResult, credits: number, ms: number, body: Record<string, unknown>) => {
    const formats = (body.formats as string[] | undefined) ?? [];
    const warnings = warningsOf(result, credits === 0);
    return html`<h2>Result</h2><p class="muted">Cost: ${cost(credits)} · ${ms} ms · status ${result.metadata.status_code} · ${result.metadata.title ?? ''}</p>
${warnings?.length ? html`<ul class="muted" data-testid="warnings">${warnings.map((w) => html`<li>${w}</li>`)}</ul>` : raw('')}
${
  (result.markdown !== undefined && formats.includes('markdown')) || !formats.length
    ? html`<h3>Markdown, rendered</h3><iframe title="Rendered content" sandbox="" class="rendered" srcdoc="${result.html ?? ''}"></iframe>
<h3>Markdown, raw</h3><pre class="secret scroll" data-testid="markdown">${result.markdown ?? ''}</pre>`
    : raw('')
}
${result.screenshot ? html`<h3>Screenshot</h3><img data-testid="screenshot" alt="Screenshot of the page" src="${new URL(result.screenshot).pathname}" class="shot"><p class="muted">Kept ${ctx.config.fileRetentionHours} hours at <a href="${result.screenshot}">${result.screenshot}</a> (anyone with the link can open it).</p>` : raw('')}
${result.json ? html`<h3>JSON</h3><pre class="secret" data-testid="json">${JSON.stringify(result.json, null, 2)}</pre><h3>Sources</h3><pre class="secret">${JSON.stringify(result.sources ?? {}, null, 2)}</pre>` : raw('')}
${result.links ? html`<h3>Links (${result.links.length})</h3><pre class="secret scroll">${result.links.join('\n')}</pre>` : raw('')}`;
  };

  playgroundTab(app, kit, { path: '/playground', form: formHtml, run, show, apiPath: '/v1/scrape' });
}
