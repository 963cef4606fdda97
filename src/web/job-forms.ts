/**
 * Jobs started from the dashboard (the Jobs page's forms, the playground's crawl tab): a crawl or
 * a batch scrape, through the use cases /v1 calls (app/crawl.ts, app/batch.ts) — one credit when
 * accepted, the same checks — with the usage row the dashboard writes for what costs credits.
 */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../app/context.js';
import { crawlOptionsOf, startCrawl } from '../app/crawl.js';
import { batchOptions, startBatch } from '../app/batch.js';
import { trawlHook } from '../app/jobs.js';
import { publicBase } from '../app/stores.js';
import { readBatchScrape } from '../contract/batch-scrape.js';
import { CrawlBody } from '../contract/schemas.js';
import { parseBody } from '../contract/validation.js';
import type { Job } from '../store/index.js';
import { html, raw, type Raw } from './html.js';
import { checkbox, compact, int, json, lines, many, renderSelect, shown, text, tick, type Posted } from './fields.js';
import { runForm } from './run.js';
import type { SessionInfo } from './session.js';

/** A crawl as the forms ask for it: always a job (`async`), answered at once. */
export function crawlBodyOf(f: Posted): Record<string, unknown> {
  return compact({
    url: text(f, 'url'),
    limit: int(f, 'limit'),
    max_depth: int(f, 'max_depth'),
    include_paths: lines(f, 'include_paths'),
    exclude_paths: lines(f, 'exclude_paths'),
    formats: many(f, 'formats'),
    only_main_content: checkbox(f, 'only_main_content', true),
    render: text(f, 'render'),
    async: true,
  });
}

export function batchBodyOf(f: Posted): Record<string, unknown> {
  return compact({
    urls: lines(f, 'urls'),
    formats: many(f, 'formats'),
    only_main_content: checkbox(f, 'only_main_content', true),
    render: text(f, 'render'),
    schema: json(f, 'schema'),
  });
}

/** A job started from a posted form: `bodyOf` makes the API body, `start` the job from it. */
const jobFrom =
  (endpoint: string, bodyOf: (f: Posted) => Record<string, unknown>, start: Start) =>
  (ctx: AppContext, request: FastifyRequest, s: SessionInfo, f: Posted) =>
    runForm(
      ctx,
      request,
      s,
      endpoint,
      () => bodyOf(f),
      (body) => start(ctx, request, s, body),
    );

type Start = (
  ctx: AppContext,
  request: FastifyRequest,
  s: SessionInfo,
  body: Record<string, unknown>,
) => Promise<{ value: Job; credits: number }>;

/** A crawl job from a posted form: the body it made (for the snippets) and how it went. */
export const startCrawlFrom = jobFrom('dashboard crawl', crawlBodyOf, async (ctx, request, s, body) => {
  const options = crawlOptionsOf(parseBody(CrawlBody, body), publicBase(ctx, request));
  const { job, credits } = await startCrawl(ctx, s.account.id, options);
  return { value: job, credits };
});

/** A batch scrape job from a posted form. */
export const startBatchFrom = jobFrom('dashboard batch scrape', batchBodyOf, async (ctx, request, s, body) => {
  const parsed = readBatchScrape(body);
  const hook = trawlHook(parsed);
  const options = batchOptions(parsed, publicBase(ctx, request));
  const { job, credits } = await startBatch(ctx, s.account.id, options, parsed.urls, hook);
  return { value: job, credits };
});

const formats = (f: Posted, prefix: string) => {
  const chosen = new Set([f.formats ?? 'markdown'].flat());
  return html`<fieldset><legend>Formats of each page</legend>${['markdown', 'html', 'links', 'json'].map((c) => html`<label class="check"><input type="checkbox" name="formats" id="${prefix}-f-${c}" value="${c}" ${raw(chosen.has(c) ? 'checked' : '')}> ${c}</label>`)}<label class="check"><input type="checkbox" name="only_main_content" value="true" ${tick(f, 'only_main_content', true)}> only the main content</label></fieldset>`;
};

/** The crawl form; `action`: where it posts (the Jobs page or the playground's tab). */
export function crawlForm(csrf: Raw, f: Posted, action: string): Raw {
  return html`<form class="stack wide" method="post" action="${action}" data-testid="crawl-form">${csrf}<input type="hidden" name="shown" value="1">
<label for="c-url">Start URL<input id="c-url" name="url" type="url" required value="${shown(f, 'url')}" placeholder="https://example.com/blog/"></label>
<div class="row"><label for="c-limit">Page limit<input id="c-limit" name="limit" inputmode="numeric" value="${shown(f, 'limit') || '10'}"></label>
<label for="c-depth">Max depth <span class="muted">(0–10)</span><input id="c-depth" name="max_depth" inputmode="numeric" value="${shown(f, 'max_depth')}" placeholder="2"></label>
${renderSelect(f, 'c-render')}</div>
<div class="row"><label for="c-inc">Include paths <span class="muted">(globs, one a line)</span><textarea id="c-inc" name="include_paths" rows="2" placeholder="/blog/*">${shown(f, 'include_paths')}</textarea></label>
<label for="c-exc">Exclude paths<textarea id="c-exc" name="exclude_paths" rows="2" placeholder="/tag/*">${shown(f, 'exclude_paths')}</textarea></label></div>
${formats(f, 'c')}
<button type="submit">Start crawl (1 credit)</button></form>`;
}

export function batchForm(csrf: Raw, f: Posted, action: string): Raw {
  return html`<form class="stack wide" method="post" action="${action}" data-testid="batch-form">${csrf}<input type="hidden" name="shown" value="1">
<label for="b-urls">URLs <span class="muted">(one a line, up to 10,000)</span><textarea id="b-urls" name="urls" rows="4" required placeholder="https://example.com/a&#10;https://example.com/b">${shown(f, 'urls')}</textarea></label>
<div class="row">${renderSelect(f, 'b-render')}</div>
${formats(f, 'b')}
<label for="b-schema">JSON Schema <span class="muted">(for the json format)</span><textarea id="b-schema" name="schema" rows="3">${shown(f, 'schema')}</textarea></label>
<button type="submit">Start batch scrape (1 credit)</button></form>`;
}

/** What the page says of a job it started. */
export const started = (job: Job): Raw =>
  html`<div class="notice ok" role="status" data-testid="job-started"><p>${job.kind === 'crawl' ? 'Crawl' : 'Batch scrape'} <code>${job.id}</code> started (1 credit). Follow it on the <a href="/jobs">Jobs page</a>; its pages download as <a href="/jobs/${job.id}/pages.jsonl" download>JSON lines</a>.</p></div>`;
