/**
 * The dashboard's Channels page: an account's notification channels with their health, made
 * (an Apprise URL or a kind's fields), enabled, disabled, deleted and sent a test message, all
 * through app/channels.ts, the use cases /v1/channels calls, so a refusal shows the API's detail.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  createChannel,
  deleteChannel,
  listChannels,
  presentChannel,
  testChannel,
  updateChannel,
} from '../app/channels.js';
import type { AppContext } from '../app/context.js';
import { publicBase } from '../app/stores.js';
import { CHANNEL_KIND_VALUES } from '../contract/schemas.js';
import { isTrawlError } from '../errors.js';
import { html, raw, type Raw } from './html.js';
import type { Kit } from './kit.js';
import type { SessionInfo } from './session.js';

type Form = Record<string, string | undefined>;
type Notice = { kind: 'ok' | 'error'; text: string };

const KIND_LABELS: Record<(typeof CHANNEL_KIND_VALUES)[number], string> = {
  email: 'Email',
  slack: 'Slack',
  discord: 'Discord',
  msteams: 'Microsoft Teams',
  telegram: 'Telegram',
  json: 'JSON POST',
};

/** The API's create body from the form: only what was filled in, so the API's checks name what is wrong. */
export function channelBody(f: Form): Record<string, unknown> {
  const t = (k: string) => f[k]?.trim() || undefined;
  const to = t('to')
    ?.split(/[\s,;]+/)
    .filter(Boolean);
  const body: Record<string, unknown> = {
    name: t('name') ?? '',
    url: t('url'),
    kind: t('kind'),
    to: to?.length ? to : undefined,
    webhook_url: t('webhook_url'),
    bot_token: t('bot_token'),
    chat_id: t('chat_id'),
    subject_template: t('subject_template'),
    body_template: t('body_template'),
    default: f.default === 'yes' ? true : undefined,
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

export function channelPages(app: FastifyInstance, ctx: AppContext, kit: Kit): void {
  const { authed, shell, csrfField, send, when } = kit;

  // Secret fields (url, webhook_url, bot_token) are never written back into the page after a post.
  const createForm = (s: SessionInfo, f: Form) => {
    const v = (k: string) => f[k] ?? '';
    return html`<h2>Add a channel</h2><form class="stack" method="post" action="/channels">${csrfField(s)}
<label for="c-name">Name <span class="muted">(letters, digits, _ . -; monitors name it in <code>notify</code>)</span><input id="c-name" name="name" required maxlength="64" pattern="[A-Za-z0-9][A-Za-z0-9_.\\-]*" value="${v('name')}" placeholder="ops-slack"></label>
<label for="c-url">Apprise URL <span class="muted">(mailto://, slack://, discord://, msteams://, tgram://, json://, jsons://, or a Slack, Discord or Teams webhook URL)</span><input id="c-url" name="url" autocomplete="off" placeholder="slack://TokenA/TokenB/TokenC"></label>
<fieldset><legend>Or choose a kind and fill in its fields</legend>
<label for="c-kind">Kind<select id="c-kind" name="kind"><option value="">— use the URL above —</option>${CHANNEL_KIND_VALUES.map((k) => html`<option value="${k}" ${raw(f.kind === k ? 'selected' : '')}>${KIND_LABELS[k]}</option>`)}</select></label>
<label for="c-to">Email recipients <span class="muted">(email; comma-separated)</span><input id="c-to" name="to" value="${v('to')}" placeholder="buyer@example.com"></label>
<label for="c-webhook">Webhook URL <span class="muted">(Slack, Discord, Teams, JSON)</span><input id="c-webhook" name="webhook_url" type="url" autocomplete="off" placeholder="https://hooks.slack.com/services/…"></label>
<label for="c-bot">Bot token <span class="muted">(Telegram)</span><input id="c-bot" name="bot_token" type="password" autocomplete="off"></label>
<label for="c-chat">Chat id <span class="muted">(Telegram)</span><input id="c-chat" name="chat_id" value="${v('chat_id')}" placeholder="-1001234567890"></label></fieldset>
<label for="c-subject">Subject template <span class="muted">(optional; e.g. <code>{{monitor.url}} changed</code>)</span><input id="c-subject" name="subject_template" maxlength="4000" value="${v('subject_template')}"></label>
<label for="c-body">Body template <span class="muted">(optional; empty: the default message)</span><textarea id="c-body" name="body_template" rows="3" maxlength="4000">${v('body_template')}</textarea></label>
<label><span><input type="checkbox" name="default" value="yes" ${raw(f.default === 'yes' ? 'checked' : '')}> Default: tell it of every monitor of this account</span></label>
<button type="submit">Add channel</button></form>`;
  };

  const listPage = async (s: SessionInfo, f: Form = {}, notice?: Notice, extra: Raw = raw('')) => {
    const rows = (await listChannels(ctx, s.account.id)).map(presentChannel);
    const action = (id: string, path: string, label: string, name: string, cls = '', confirm?: string, field?: Raw) =>
      html`<form class="inline" method="post" action="/channels/${id}/${path}" ${raw(confirm ? `data-confirm="${confirm}"` : '')}>${csrfField(s)}${field ?? ''}<button type="submit" class="${cls}" aria-label="${label} ${name}">${label}</button></form> `;
    const table = rows.length
      ? html`<div class="table-wrap" tabindex="0"><table aria-label="Channels"><thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Sends to</th><th scope="col">State</th><th scope="col">Last success</th><th scope="col">Last failure</th><th scope="col">Failures in a row</th><th scope="col"><span class="muted">Actions</span></th></tr></thead><tbody>${rows.map(
          (c) =>
            html`<tr data-channel="${c.name}"><td>${c.name}${c.default ? html` <span class="muted">(default)</span>` : ''}</td><td>${KIND_LABELS[c.kind as keyof typeof KIND_LABELS] ?? c.kind}</td><td><code>${c.target}</code></td><td data-testid="state">${c.state === 'disabled' ? html`<strong>disabled</strong><div class="muted">${when(c.disabled_at ?? null)}: ${c.disabled_reason ?? ''}</div>` : 'active'}</td><td>${when(c.health.last_success_at)}</td><td>${when(c.health.last_failure_at)}${c.health.last_error ? html`<div class="muted">${c.health.last_error}</div>` : ''}</td><td data-testid="failures">${c.health.consecutive_failures}</td>
<td>${action(c.channel_id, 'test', 'Send a test', c.name, 'secondary')}${action(c.channel_id, 'state', c.state === 'active' ? 'Disable' : 'Enable', c.name, 'secondary', undefined, html`<input type="hidden" name="state" value="${c.state === 'active' ? 'disabled' : 'active'}">`)}${action(c.channel_id, 'delete', 'Delete', c.name, 'danger', 'Delete this channel? Its messages not yet sent are dropped.')}</td></tr>`,
        )}</tbody></table></div>`
      : html`<p class="empty">No channels yet. Add one below, then name it in a monitor's <code>notify</code> (or tick Default) to hear of its changes by email, Slack, Discord, Teams, Telegram or a JSON POST.</p>`;
    const keyless = ctx.config.secretKey
      ? raw('')
      : html`<div class="notice error" role="status">This service keeps no secrets yet: the operator sets <code>TRAWL_SECRET_KEY</code> to store notification channels.</div>`;
    return shell(s, '/channels', 'Channels', html`${keyless}${extra}${table}${createForm(s, f)}`, notice);
  };

  type P = { id: string };
  const idOf = (request: FastifyRequest) => (request.params as P).id;
  /** A refusal of the use case shown on the page with the API's status and detail. */
  const guarded =
    (run: (request: FastifyRequest, s: SessionInfo) => Promise<{ status: number; page: string }>) =>
    async (request: FastifyRequest, s: SessionInfo) => {
      try {
        return await run(request, s);
      } catch (e) {
        if (!isTrawlError(e) || e.status >= 500) throw e;
        return { status: e.status, page: await listPage(s, {}, { kind: 'error', text: e.detail }) };
      }
    };
  const post = (
    path: string,
    run: (request: FastifyRequest, s: SessionInfo) => Promise<{ status: number; page: string }>,
  ) =>
    app.post(
      path,
      { schema: { hide: true } },
      authed(async (request, reply, s) => {
        const r = await guarded(run)(request, s);
        return send(reply, r.status, r.page);
      }),
    );

  app.get(
    '/channels',
    { schema: { hide: true } },
    authed(async (_request, reply, s) => send(reply, 200, await listPage(s))),
  );
  post('/channels', async (request, s) => {
    const f = (request.body ?? {}) as Form;
    try {
      const c = await createChannel(ctx, s.account.id, channelBody(f));
      return { status: 201, page: await listPage(s, {}, { kind: 'ok', text: `Channel “${c.name}” added.` }) };
    } catch (e) {
      if (!isTrawlError(e) || e.status >= 500) throw e;
      return { status: e.status, page: await listPage(s, f, { kind: 'error', text: e.detail }) };
    }
  });
  post('/channels/:id/test', async (request, s) => {
    const r = await testChannel(ctx, s.account.id, idOf(request), publicBase(ctx, request));
    const answer = r.response_status === null ? 'no answer' : `answered ${r.response_status}`;
    const text = r.delivered
      ? `Test message delivered: the channel ${answer} in ${r.duration_ms} ms.`
      : `Test message not delivered: the channel ${answer}${r.error ? ` (${r.error})` : ''}.`;
    const result = html`<p data-testid="test-result" data-status="${r.response_status ?? ''}" class="muted">Last test: ${r.delivered ? 'delivered' : 'not delivered'}, response status ${r.response_status ?? '—'}.</p>`;
    return { status: 200, page: await listPage(s, {}, { kind: r.delivered ? 'ok' : 'error', text }, result) };
  });
  post('/channels/:id/state', async (request, s) => {
    const state = ((request.body ?? {}) as Form).state === 'disabled' ? 'disabled' : 'active';
    const c = await updateChannel(ctx, s.account.id, idOf(request), { state });
    const text =
      state === 'disabled' ? `Channel “${c.name}” disabled: nothing is sent to it.` : `Channel “${c.name}” enabled.`;
    return { status: 200, page: await listPage(s, {}, { kind: 'ok', text }) };
  });
  post('/channels/:id/delete', async (request, s) => {
    await deleteChannel(ctx, s.account.id, idOf(request));
    return { status: 200, page: await listPage(s, {}, { kind: 'ok', text: 'Channel deleted.' }) };
  });
}
