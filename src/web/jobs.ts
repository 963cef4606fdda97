/**
 * Dashboard pages for jobs: start a crawl or a batch scrape (forms, CSRF-protected as every
 * dashboard form; job-forms.ts), the account's jobs with their progress (refreshed in place while
 * one runs: app.js reads `/jobs/rows.json`, no inline script, so the CSP holds), the newest job's
 * read as curl/TypeScript/Python, and each job's pages as a JSON-lines download (streamed from the
 * store a few pages at a time, so a 100,000-page job is never held whole in memory).
 */
import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import type { AppContext } from '../app/context.js';
import { findJob, listJobs, pagesAfter } from '../app/jobs.js';
import { html, raw, type Raw } from './html.js';
import type { Kit } from './kit.js';
import type { SessionInfo } from './session.js';
import type { Posted } from './fields.js';
import { batchForm, crawlForm, startBatchFrom, startCrawlFrom, started } from './job-forms.js';
import { readSnippets } from './snippets.js';
import { apiBase } from './tabs.js';

type Listed = Awaited<ReturnType<typeof listJobs>>[number];
const running = (j: Listed) => j.state === 'queued' || j.state === 'running';
/** How often the page asks for fresh rows while a job runs (app.js reads it from the table). */
const REFRESH_MS = 2000;

export function jobPages(app: FastifyInstance, ctx: AppContext, kit: Kit): void {
  const { authed, shell, send, when } = kit;

  const { csrfField } = kit;
  const rowsOf = (rows: Listed[]) =>
    rows.map((j) => {
      const total = Number(j.total);
      const ended = Number(j.done) + Number(j.failed);
      return html`<tr data-job="${j.id}"><td><code>${j.id}</code></td><td>${j.kind}</td><td>${j.state}</td><td><progress max="${String(Math.max(1, total))}" value="${String(ended)}" aria-label="${ended} of ${total}"></progress> ${Number(j.done)} done, ${Number(j.failed)} failed of ${total}</td><td>${when(j.created_at)}</td><td>${when(j.finished_at)}</td><td><a href="/jobs/${j.id}/pages.jsonl" download>JSON lines</a></td></tr>`;
    });
  /** The page: the two forms (the one posted shown open, with what was posted), then the jobs. */
  const jobsPage = async (
    s: SessionInfo,
    base: string,
    posted?: { which: 'crawl' | 'batch'; f: Posted },
    top: Raw = raw(''),
    notice?: { kind: 'ok' | 'error'; text: string },
  ) => {
    const rows = await listJobs(ctx, s.account.id, 100);
    // While a job runs, app.js swaps the rows for fresh ones (data-live names where from).
    const live = rows.some(running) ? raw(`data-live="/jobs/rows.json" data-every="${REFRESH_MS}"`) : raw('');
    const list = rows.length
      ? html`<div class="table-wrap" tabindex="0"><table aria-label="Jobs" ${live}><thead><tr><th scope="col">Job</th><th scope="col">Kind</th><th scope="col">State</th><th scope="col">Progress</th><th scope="col">Created</th><th scope="col">Finished</th><th scope="col">Results</th></tr></thead><tbody>${rowsOf(rows)}</tbody></table></div>
${readSnippets(base, `/v1/jobs/${rows[0].id}`, `Read job ${rows[0].id}`)}`
      : html`<p class="empty">No jobs yet. Start one above, or with <code>POST /v1/crawl</code> and <code>"async": true</code>, or <code>POST /v1/batch/scrape</code>; they show here with their progress.</p>`;
    const open = (which: 'crawl' | 'batch') => raw(posted?.which === which ? 'open' : '');
    const body = html`${top}<details class="start" ${open('crawl')}><summary>Start a crawl</summary>${crawlForm(csrfField(s), posted?.which === 'crawl' ? posted.f : {}, '/jobs/crawl')}</details>
<details class="start" ${open('batch')}><summary>Start a batch scrape</summary>${batchForm(csrfField(s), posted?.which === 'batch' ? posted.f : {}, '/jobs/batch')}</details>
<h2>Your jobs</h2>${list}`;
    return shell(s, '/jobs', 'Jobs', body, notice);
  };

  app.get(
    '/jobs',
    { schema: { hide: true } },
    authed(async (request, reply, s) => send(reply, 200, await jobsPage(s, apiBase(request)))),
  );
  // The rows alone, for the page's own refresh: escaped here, as the page's are.
  app.get(
    '/jobs/rows.json',
    { schema: { hide: true } },
    authed(async (_request, reply, s) => {
      const rows = await listJobs(ctx, s.account.id, 100);
      return reply.header('cache-control', 'no-store').send({
        rows: rowsOf(rows)
          .map((r) => r.html)
          .join(''),
        live: rows.some(running),
      });
    }),
  );
  for (const which of ['crawl', 'batch'] as const)
    app.post(
      `/jobs/${which}`,
      { schema: { hide: true } },
      authed(async (request, reply, s) => {
        const f = (request.body ?? {}) as Posted;
        const { outcome } = await (which === 'crawl' ? startCrawlFrom : startBatchFrom)(ctx, request, s, f);
        if (!outcome.ok)
          return send(
            reply,
            outcome.status,
            await jobsPage(s, apiBase(request), { which, f }, raw(''), { kind: 'error', text: outcome.text }),
          );
        return send(reply, 200, await jobsPage(s, apiBase(request), undefined, started(outcome.value)));
      }),
    );

  app.get(
    '/jobs/:id/pages.jsonl',
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      const id = (request.params as { id: string }).id;
      const job = await findJob(ctx, s.account.id, id);
      if (!job) return send(reply, 404, shell(s, '/jobs', 'Jobs', html`<p>No such job.</p>`));
      let after = 0;
      const lines = Readable.from(
        (async function* () {
          for (;;) {
            // A few pages at a time, a line each: pages may be tens of MB (a hundred joined made
            // a string longer than V8 allows, and the download broke off).
            const rows = await pagesAfter(ctx, job, after, 8);
            if (!rows.length) return;
            for (const r of rows) yield `${r.page}\n`;
            after = Number(rows.at(-1)!.n);
          }
        })(),
      );
      return reply
        .header('content-type', 'application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="${job.id}.jsonl"`)
        .send(lines);
    }),
  );
}
