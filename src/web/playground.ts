/**
 * The playground: try /v1/scrape from the dashboard, with the account's credits and the API's
 * own validation. Shows the markdown (rendered, as the page's cleaned HTML in a sandboxed frame
 * that runs no script, and raw), the JSON with its sources, the screenshot, what it cost, and the
 * equivalent curl command (with a placeholder, never a real key).
 */
import type { FastifyInstance } from 'fastify';
import { isTrawlError, TrawlError } from '../errors.js';
import type { ScrapeFormat } from '../engine/index.js';
import type { AppContext } from '../app/context.js';
import { scrapeCharged, warningsOf } from '../app/scrape.js';
import { publicBase } from '../app/stores.js';
import { recordUsage } from '../app/usage.js';
import { ScrapeBody } from '../contract/schemas.js';
import { checkPageOptions } from '../contract/page-options.js';
import { formatsAndSchema, parseBody } from '../contract/validation.js';
import { html, raw } from './html.js';
import type { Kit } from './kit.js';
import type { SessionInfo } from './session.js';

type Form = Record<string, string | string[] | undefined>;
const FORMAT_CHOICES = ['markdown', 'json', 'html', 'links', 'screenshot'] as const;

export function playgroundPage(app: FastifyInstance, ctx: AppContext, kit: Kit): void {
  const { authed, shell, csrfField, send } = kit;
  const formHtml = (s: SessionInfo, f: Form) => {
    const chosen = new Set([f.formats ?? 'markdown'].flat());
    return html`<form class="stack" method="post" action="/playground" style="max-width:none">${csrfField(s)}
<label for="p-url">URL<input id="p-url" name="url" type="url" required value="${f.url ?? ''}" placeholder="https://example.com/article"></label>
<fieldset><legend>Formats</legend>${FORMAT_CHOICES.map((c) => html`<label style="display:inline-flex;gap:.35rem;margin-right:1rem;font-weight:400"><input type="checkbox" name="formats" value="${c}" ${raw(chosen.has(c) ? 'checked' : '')}> ${c}</label>`)}</fieldset>
<label for="p-schema">Schema <span class="muted">(for json: field → "string" | "number" | "integer" | "boolean" | {…} | [T])</span><textarea id="p-schema" name="schema" rows="4" placeholder='{"title":"string","price":"number"}'>${f.schema ?? ''}</textarea></label>
<label for="p-render">Render<select id="p-render" name="render">${['auto', 'http', 'browser'].map((r) => html`<option ${raw(f.render === r ? 'selected' : '')}>${r}</option>`)}</select></label>
<button type="submit">Scrape (1 credit)</button></form>`;
  };
  app.get(
    '/playground',
    { schema: { hide: true } },
    authed(async (_request, reply, s) => send(reply, 200, shell(s, '/playground', 'Playground', formHtml(s, {})))),
  );
  app.post(
    '/playground',
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      const f = (request.body ?? {}) as Form;
      const formats = [f.formats ?? []].flat().filter(Boolean) as string[];
      const body: Record<string, unknown> = {
        url: f.url || undefined,
        formats: formats.length ? formats : undefined,
        render: f.render || undefined,
      };
      const fail = (status: number, text: string) =>
        send(reply, status, shell(s, '/playground', 'Playground', formHtml(s, f), { kind: 'error', text }));
      if (typeof f.schema === 'string' && f.schema.trim()) {
        try {
          body.schema = JSON.parse(f.schema);
        } catch {
          return fail(422, 'schema: is not valid JSON');
        }
      }
      const started = Date.now();
      let result;
      let credits;
      const usageOf = (status: number, credits: number) => ({
        accountId: s.account.id,
        keyId: null,
        endpoint: 'dashboard playground',
        status,
        credits,
        durationMs: Date.now() - started,
        requestId: String(request.id),
      });
      try {
        const parsed = parseBody(ScrapeBody, body);
        const { schema } = formatsAndSchema(parsed.formats, parsed.schema);
        checkPageOptions(parsed);
        const fmts = parsed.formats as ScrapeFormat[] | undefined;
        // A closed tab stops the work (and its charge), as a closed API connection does.
        const gone = new AbortController();
        const onClose = () => gone.abort(new TrawlError('fetch_failed', 'the browser tab closed the connection'));
        request.raw.socket?.once('close', onClose);
        try {
          // The cleaned HTML is always asked for: it is what the "rendered" view shows. An answer
          // with nothing in it is free, as from /v1/scrape.
          ({ result, credits } = await scrapeCharged(
            ctx,
            { accountId: s.account.id, base: publicBase(ctx, request), signal: gone.signal },
            {
              url: parsed.url,
              formats: fmts ?? ['markdown'],
              schema,
              render: parsed.render,
            },
            ['html'],
          ));
        } finally {
          request.raw.socket?.off('close', onClose);
        }
      } catch (e) {
        if (!isTrawlError(e)) throw e;
        if (e.code === 'insufficient_credits') return fail(402, 'No credits left.');
        await recordUsage(ctx, usageOf(e.status, 0));
        return fail(e.status, `${e.code}: ${e.detail}`);
      }
      await recordUsage(ctx, usageOf(200, credits));
      const warnings = warningsOf(result, credits === 0);
      const curlBody = JSON.stringify(body);
      const curl = `curl -s ${request.protocol}://${request.headers.host}/v1/scrape \\\n  -H "Authorization: Bearer trawl_…" -H "Content-Type: application/json" \\\n  -d '${curlBody.replace(/'/g, "'\\''")}'`;
      const out = html`<h2>Result</h2><p class="muted">Cost: ${credits === 1 ? '1 credit' : `${credits} credits`} · ${Date.now() - started} ms · status ${result.metadata.status_code} · ${result.metadata.title ?? ''}</p>
${warnings?.length ? html`<ul class="muted" data-testid="warnings">${warnings.map((w) => html`<li>${w}</li>`)}</ul>` : raw('')}
${
  (result.markdown !== undefined && formats.includes('markdown')) || !formats.length
    ? html`<h3>Markdown, rendered</h3><iframe title="Rendered content" sandbox="" style="width:100%;height:320px;border:1px solid #d1d5db;border-radius:6px;background:#fff" srcdoc="${result.html ?? ''}"></iframe>
<h3>Markdown, raw</h3><pre class="secret" style="white-space:pre-wrap;max-height:360px;overflow:auto" data-testid="markdown">${result.markdown ?? ''}</pre>`
    : raw('')
}
${result.screenshot ? html`<h3>Screenshot</h3><img data-testid="screenshot" alt="Screenshot of the page" src="${new URL(result.screenshot).pathname}" style="max-width:100%;border:1px solid #d1d5db;border-radius:6px"><p class="muted">Kept ${ctx.config.fileRetentionHours} hours at <a href="${result.screenshot}">${result.screenshot}</a> (anyone with the link can open it).</p>` : raw('')}
${result.json ? html`<h3>JSON</h3><pre class="secret" data-testid="json">${JSON.stringify(result.json, null, 2)}</pre><h3>Sources</h3><pre class="secret">${JSON.stringify(result.sources ?? {}, null, 2)}</pre>` : raw('')}
${result.links ? html`<h3>Links (${result.links.length})</h3><pre class="secret" style="max-height:200px;overflow:auto">${result.links.join('\n')}</pre>` : raw('')}
<h3>The same with curl</h3><pre class="secret" id="curl">${curl}</pre><button type="button" class="secondary" data-copy="curl">Copy</button>`;
      return send(reply, 200, shell(s, '/playground', 'Playground', html`${formHtml(s, f)}${out}`));
    }),
  );
}
