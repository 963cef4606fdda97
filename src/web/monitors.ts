/**
 * Dashboard pages for monitors: list and create (validated by the API's own service functions,
 * whose `detail` is shown on error), a monitor's page (state, last values, runs, deliveries with
 * their attempts and a redeliver button, a chart per numeric watched field), pause/resume, run
 * now and delete.
 */
import { sessionUse } from '../app/browser-sessions.js';
import type { FastifyInstance } from 'fastify';
import { deliveryConfig, metaConfig } from '../config.js';
import { isTrawlError } from '../errors.js';
import { redeliver } from '../monitors/deliver.js';
import { runNow } from '../monitors/runner.js';
import {
  createMonitor,
  deleteMonitor,
  findMonitor,
  listDeliveries,
  monitorDetail,
  updateMonitor,
} from '../app/monitors.js';
import { listChannels } from '../app/channels.js';
import type { AppContext } from '../app/context.js';
import { monitors as repo, snapshots, webhooks } from '../store/index.js';
import { html, raw, type Raw } from './html.js';
import type { Kit } from './kit.js';
import type { SessionInfo } from './session.js';

type Form = Record<string, string | undefined>;
const short = (v: unknown) => {
  const s = v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
};

/** What a delivery carried (change.detected, monitor.failing, monitor.recovered), from its body. */
const eventType = (event: unknown): string => {
  const e = event as { event?: unknown; type?: unknown } | null;
  return typeof e?.event === 'string' ? e.event : typeof e?.type === 'string' ? e.type : '—';
};

export function monitorPages(app: FastifyInstance, ctx: AppContext, kit: Kit): void {
  const { authed, shell, csrfField, send, when } = kit;
  const mctx = { store: ctx.store, engine: ctx.engine, config: ctx.config, wake: () => ctx.scheduler?.wake() };
  const deps = () => ({
    store: ctx.store,
    engine: ctx.engine,
    meta: metaConfig(ctx.config),
    redact: ctx.redact,
    onDelivery: ctx.scheduler?.handDelivery.bind(ctx.scheduler),
    sessions: sessionUse(ctx),
  });

  const listPage = async (s: SessionInfo, f: Form = {}, notice?: { kind: 'ok' | 'error'; text: string }) => {
    const rows = await snapshots.expandRows(
      ctx.store.db,
      await repo.listMonitors(ctx.store.db, s.account.id, 100),
      'last_values',
    );
    const table = rows.length
      ? html`<div class="table-wrap" tabindex="0"><table aria-label="Monitors"><thead><tr><th scope="col">URL</th><th scope="col">State</th><th scope="col">Health</th><th scope="col">Webhook</th><th scope="col">Interval</th><th scope="col">Last run</th><th scope="col">Last values</th></tr></thead><tbody>${rows.map(
          (m) =>
            html`<tr><td><a href="/monitors/${m.id}">${short(m.url)}</a></td><td>${m.state}</td><td>${m.health}</td><td>${m.webhook_state === 'disabled' ? html`<strong>disabled</strong>` : 'active'}</td><td>${m.interval}</td><td>${when(m.last_run_at)}</td><td>${short(m.last_values ? JSON.parse(m.last_values) : null)}</td></tr>`,
        )}</tbody></table></div>`
      : html`<p class="empty">No monitors yet. Create one below: Trawl fetches the page on its interval and calls your webhook when a watched field changes.</p>`;
    const body = html`${table}<h2>Create a monitor</h2><form class="stack" method="post" action="/monitors">${csrfField(s)}
<label for="m-url">Page URL<input id="m-url" name="url" type="url" required value="${f.url ?? ''}" placeholder="https://www.example.com/product"></label>
<label for="m-interval">Interval <span class="muted">(e.g. 30m, 6h, 1d)</span><input id="m-interval" name="interval" required value="${f.interval ?? '6h'}"></label>
<label for="m-watch">Watched fields <span class="muted">(comma-separated: title, markdown, status_code, schema keys, product fields)</span><input id="m-watch" name="watch" required value="${f.watch ?? 'title'}"></label>
<label for="m-webhook">Webhook URL<input id="m-webhook" name="webhook" type="url" required value="${f.webhook ?? ''}" placeholder="https://hooks.example.com/trawl"></label>
<label for="m-schema">Schema <span class="muted">(optional JSON, e.g. {"price":"number"})</span><textarea id="m-schema" name="schema" rows="3">${f.schema ?? ''}</textarea></label>
<label for="m-conditions">Conditions <span class="muted">(optional JSON: notify only when all hold, e.g. [{"field":"price","op":"lt","value":50}])</span><textarea id="m-conditions" name="conditions" rows="2">${f.conditions ?? ''}</textarea></label>
<button type="submit">Create monitor</button></form>`;
    return shell(s, '/monitors', 'Monitors', body, notice);
  };

  app.get(
    '/monitors',
    { schema: { hide: true } },
    authed(async (_request, reply, s) => send(reply, 200, await listPage(s))),
  );
  app.post(
    '/monitors',
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      const f = (request.body ?? {}) as Form;
      const body: Record<string, unknown> = {
        url: f.url || undefined,
        interval: f.interval || undefined,
        watch: (f.watch ?? '')
          .split(',')
          .map((w) => w.trim())
          .filter(Boolean),
        webhook: f.webhook || undefined,
      };
      if (f.schema?.trim()) {
        try {
          body.schema = JSON.parse(f.schema);
        } catch {
          return send(reply, 400, await listPage(s, f, { kind: 'error', text: 'schema: is not valid JSON' }));
        }
      }
      if (f.conditions?.trim()) {
        try {
          body.conditions = JSON.parse(f.conditions);
        } catch {
          return send(reply, 400, await listPage(s, f, { kind: 'error', text: 'conditions: is not valid JSON' }));
        }
      }
      try {
        const m = await createMonitor(mctx, s.account.id, body);
        return reply.redirect(`/monitors/${m.id}`, 303);
      } catch (e) {
        if (!isTrawlError(e)) throw e;
        return send(reply, e.status, await listPage(s, f, { kind: 'error', text: e.detail }));
      }
    }),
  );

  const detailPage = async (s: SessionInfo, id: string, notice?: { kind: 'ok' | 'error'; text: string }) => {
    const m = await findMonitor(ctx, s.account.id, id);
    const d = await monitorDetail(ctx, m);
    const deliveries = await listDeliveries(ctx, m.id, 20);
    const chans = await listChannels(ctx, s.account.id);
    const named = new Set(d.notify);
    // The whole list is posted each time: unticking every box empties it.
    const notifyForm = chans.length
      ? html`<form class="stack" method="post" action="/monitors/${m.id}/notify">${csrfField(s)}<fieldset><legend>Channels told of this monitor's changes and failures</legend>${chans.map(
          (c) =>
            html`<label><span><input type="checkbox" name="notify" value="${c.name}" ${raw(named.has(c.name) ? 'checked' : '')}> ${c.name} <span class="muted">(${c.kind}${c.is_default ? ', default: told of every monitor' : ''}${c.state === 'disabled' ? ', disabled' : ''})</span></span></label>`,
        )}</fieldset><button type="submit" class="secondary">Save channels</button></form>`
      : html`<p class="empty">No notification channels yet: <a href="/channels">add one</a> to hear of this monitor by email, Slack, Discord, Teams, Telegram or JSON.</p>`;
    const charts: Raw[] = [];
    for (const field of d.watch) {
      const points = (await repo.fieldHistory(ctx.store.db, m.id, 200))
        .map((p) => ({ at: p.at, value: (JSON.parse(p.values) as Record<string, unknown>)[field] }))
        .reverse();
      if (!points.some((p) => typeof p.value === 'number')) continue;
      const data = JSON.stringify({
        title: `${field} over time`,
        axis: field,
        times: points.map((p) => p.at),
        series: [{ label: field, values: points.map((p) => (typeof p.value === 'number' ? p.value : null)) }],
      });
      charts.push(
        html`<div id="chart-${field}" class="chart" role="img" aria-label="${field} over the monitor's runs">Loading chart…</div><script type="application/json" data-chart-for="chart-${field}">${raw(data.replace(/</g, '\\u003c'))}</script>`,
      );
    }
    const action = (path: string, label: string, cls = '', extra: Raw = raw(''), confirm?: string) =>
      html`<form class="inline" method="post" action="/monitors/${m.id}/${path}" ${raw(confirm ? `data-confirm="${confirm}"` : '')}>${csrfField(s)}${extra}<button type="submit" class="${cls}">${label}</button></form> `;
    const body = html`<p><a href="/monitors">← All monitors</a></p>
<div class="cards"><div class="card"><div class="muted">URL</div><div style="word-break:break-all">${d.url}</div></div>
<div class="card"><div class="muted">State · health</div><div class="big" style="font-size:1.3rem" data-testid="state">${d.state} · ${d.health}</div></div>
<div class="card"><div class="muted">Interval · next run</div><div>${d.interval} · ${when(d.next_run_at)}</div></div>
<div class="card"><div class="muted">Webhook</div><div style="word-break:break-all">${d.webhook}</div><div data-testid="webhook-state">${d.webhook_state === 'disabled' ? html`<strong>disabled</strong>` : 'active'}</div></div></div>
${d.webhook_state === 'disabled' ? html`<div class="notice error" role="status" data-testid="webhook-disabled"><p>Webhook disabled ${when(d.webhook_disabled_at ?? null)}: ${d.webhook_disabled_reason ?? ''}. Nothing is sent until it is re-enabled; events found meanwhile are kept as failed deliveries, which a replay sends again (<code>POST /v1/webhooks/replay</code>).</p>${action('webhook-state', 'Re-enable webhook', 'secondary')}</div>` : raw('')}
<p style="margin-top:1rem">${action('state', d.state === 'active' ? 'Pause' : 'Resume', 'secondary', html`<input type="hidden" name="state" value="${d.state === 'active' ? 'paused' : 'active'}">`)}${action('run', 'Run now')}${action('delete', 'Delete', 'danger', raw(''), 'Delete this monitor, its runs and any unsent webhooks?')}</p>
<h2>Notifications</h2>${notifyForm}
<h2>Last values</h2>${d.last_values ? html`<div class="table-wrap" tabindex="0"><table aria-label="Last values"><tbody>${Object.entries(d.last_values as Record<string, unknown>).map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${short(v)}</td></tr>`)}</tbody></table></div>` : html`<p class="empty">No successful run yet: the first one records the baseline.</p>`}
${charts.length ? html`<h2>History</h2>${charts}` : raw('')}
<h2>Runs</h2>${d.last_runs.length ? html`<div class="table-wrap" tabindex="0"><table aria-label="Runs"><thead><tr><th scope="col">Due</th><th scope="col">Trigger</th><th scope="col">Status</th><th scope="col">Changes</th><th scope="col">Error</th></tr></thead><tbody>${d.last_runs.map((r) => html`<tr><td>${when(r.due_at)}</td><td>${r.trigger}</td><td>${r.status}</td><td>${short(r.changes)}</td><td>${r.error ?? ''}</td></tr>`)}</tbody></table></div>` : html`<p class="empty">No runs yet.</p>`}
${d.unchanged_runs_collapsed ? html`<p class="muted" data-testid="collapsed">Plus ${d.unchanged_runs_collapsed} older unchanged runs, counted rather than kept (runs that changed something or failed are kept ${ctx.config.runRetentionDays} days).</p>` : raw('')}
<h2>Webhook deliveries</h2>${
      deliveries.length
        ? html`<div class="table-wrap" tabindex="0"><table aria-label="Deliveries"><thead><tr><th scope="col">Event type</th><th scope="col">Event</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last status</th><th scope="col">Next retry</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${deliveries.map(
            (dl) =>
              html`<tr><td data-testid="event-type">${eventType(dl.event)}</td><td><code>${dl.event_id}</code></td><td>${dl.state}</td><td>${dl.attempt_log.map((a) => `${a.attempt}${a.manual ? ' (manual)' : ''}: ${a.status_code ?? a.outcome}`).join(', ') || '—'}</td><td>${dl.last_status ?? '—'}</td><td>${when(dl.next_attempt_at)}</td><td>${action(`deliveries/${dl.delivery_id}/redeliver`, 'Redeliver', 'secondary')}</td></tr>`,
          )}</tbody></table></div>`
        : html`<p class="empty">No changes detected yet, so no webhooks sent.</p>`
    }`;
    return shell(s, '/monitors', 'Monitor', body, notice);
  };

  type P = { id: string };
  app.get(
    '/monitors/:id',
    { schema: { hide: true } },
    authed(async (request, reply, s) => send(reply, 200, await detailPage(s, (request.params as P).id))),
  );
  app.post(
    '/monitors/:id/state',
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      const id = (request.params as P).id;
      await updateMonitor(mctx, s.account.id, id, {
        state: (request.body as Form).state === 'paused' ? 'paused' : 'active',
      });
      return send(reply, 200, await detailPage(s, id, { kind: 'ok', text: 'Monitor updated.' }));
    }),
  );
  app.post(
    '/monitors/:id/notify',
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      const id = (request.params as P).id;
      const v = (request.body as Record<string, string | string[] | undefined>).notify;
      await updateMonitor(mctx, s.account.id, id, { notify: [v ?? []].flat() });
      return send(reply, 200, await detailPage(s, id, { kind: 'ok', text: 'Channels saved.' }));
    }),
  );
  app.post(
    '/monitors/:id/webhook-state',
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      const id = (request.params as P).id;
      await updateMonitor(mctx, s.account.id, id, { webhook_state: 'active' });
      return send(reply, 200, await detailPage(s, id, { kind: 'ok', text: 'Webhook re-enabled.' }));
    }),
  );
  app.post(
    '/monitors/:id/run',
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      const m = await findMonitor(ctx, s.account.id, (request.params as P).id);
      const run = await runNow(deps(), m);
      const text =
        run.status === 'succeeded'
          ? run.event_id
            ? 'Run finished: a change was found and a webhook queued.'
            : 'Run finished.'
          : `Run ${run.status}: ${run.error ?? ''}`;
      return send(reply, 200, await detailPage(s, m.id, { kind: run.status === 'succeeded' ? 'ok' : 'error', text }));
    }),
  );
  app.post(
    '/monitors/:id/delete',
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      await deleteMonitor(ctx, s.account.id, (request.params as P).id);
      return send(reply, 200, await listPage(s, {}, { kind: 'ok', text: 'Monitor deleted.' }));
    }),
  );
  app.post(
    '/monitors/:id/deliveries/:did/redeliver',
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      const { id, did } = request.params as { id: string; did: string };
      const m = await findMonitor(ctx, s.account.id, id);
      const d = await webhooks.getDelivery(ctx.store.db, did);
      if (!d || d.monitor_id !== m.id)
        return send(reply, 404, await detailPage(s, m.id, { kind: 'error', text: 'No such delivery.' }));
      await redeliver({ store: ctx.store, engine: ctx.engine, ...deliveryConfig(ctx.config), redact: ctx.redact }, d);
      return send(reply, 200, await detailPage(s, m.id, { kind: 'ok', text: 'Sent again; see the attempts below.' }));
    }),
  );
}
