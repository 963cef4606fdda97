/**
 * Notification channels as an account keeps them (/v1/channels): checked, their secrets sealed
 * under TRAWL_SECRET_KEY (refused without one), shown only redacted, attached to monitors by
 * name, and sent a test message on request. Their messages travel the monitors' outbox
 * (monitors/deliver.ts → webhooks/channels/).
 */
import type { Config } from '../config.js';
import { invalidRequest, notFound } from '../errors.js';
import type { NotifyDeps } from '../monitors/deliver.js';
import { testData } from '../monitors/notify.js';
import { createSealer, type Sealer } from '../sealed.js';
import { channels as repo, newId, type NotificationChannel } from '../store/index.js';
import {
  CHANNEL_SEAL_PURPOSE,
  channelHttpUrl,
  channelSecretOf,
  parseTemplate,
  redactedTarget,
  sendToChannel,
  TemplateError,
  type ChannelSecret,
} from '../webhooks/channels/index.js';
import { CreateChannelBody, UpdateChannelBody } from '../contract/schemas.js';
import { parseBody } from '../contract/validation.js';
import type { AppContext } from './context.js';
import { refuseForbidden } from './targets.js';

/** Most channels one account may have. */
export const MAX_CHANNELS = 100;
/** Most distinct email addresses an account's channels may name: one event would otherwise mail 100 × 20 people. */
export const MAX_EMAIL_RECIPIENTS = 50;
const CHANNEL_ID = /^chn_[0-9A-Za-z]{20}$/;

/** What channels' messages need, for the scheduler and the test endpoint alike. */
export function notifyDeps(config: Config, address: () => string = () => ''): NotifyDeps {
  return {
    sealer: createSealer(config.secretKey, config.secretKeyPrevious),
    smtpUrl: config.smtpUrl,
    smtpFrom: config.smtpFrom,
    telegramApiUrl: config.telegramApiUrl,
    publicUrl: () => config.publicUrl ?? (address() || `http://${config.host}:${config.port}`),
  };
}

function sealerOf(ctx: Pick<AppContext, 'config'>): Sealer {
  const sealer = createSealer(ctx.config.secretKey, ctx.config.secretKeyPrevious);
  if (!sealer)
    throw invalidRequest(
      'channels: this service keeps no secrets: the operator sets TRAWL_SECRET_KEY (32 characters or more, e.g. `openssl rand -hex 32`) to store notification channels',
    );
  return sealer;
}

function checkTemplate(field: string, src: string | null | undefined): void {
  if (src === null || src === undefined) return;
  try {
    parseTemplate(src);
  } catch (e) {
    if (e instanceof TemplateError) throw invalidRequest(`${field}: ${e.message}`);
    throw e;
  }
}

/** The account's email channels (but `except`) with `s` may name at most MAX_EMAIL_RECIPIENTS addresses (their targets list them). */
async function checkRecipients(ctx: AppContext, accountId: string, s: ChannelSecret, except?: string): Promise<void> {
  if (s.kind !== 'email') return;
  const all = new Set(s.to.map((a) => a.toLowerCase()));
  for (const c of await repo.listChannels(ctx.store.db, accountId))
    if (c.kind === 'email' && c.id !== except)
      for (const a of c.target.replace(/^mailto:\/\//, '').split(',')) all.add(a.toLowerCase());
  if (all.size > MAX_EMAIL_RECIPIENTS)
    throw invalidRequest(
      `to: this account's email channels would name ${all.size} addresses; at most ${MAX_EMAIL_RECIPIENTS} (a mailing list address counts as one)`,
    );
}

/** An HTTP channel's URL on a private address is refused now (403), as a webhook's is; Telegram's API and SMTP are the operator's. */
async function refuseTarget(ctx: AppContext, s: ChannelSecret): Promise<void> {
  if (s.kind === 'email' || s.kind === 'telegram') return;
  await refuseForbidden(ctx, channelHttpUrl(s, ctx.config.telegramApiUrl)!, 'url: ');
}

export function presentChannel(c: NotificationChannel) {
  return {
    channel_id: c.id,
    name: c.name,
    kind: c.kind,
    target: c.target,
    default: !!c.is_default,
    subject_template: c.subject_template,
    body_template: c.body_template,
    state: c.state,
    ...(c.state === 'disabled' ? { disabled_at: c.disabled_at, disabled_reason: c.disabled_reason } : {}),
    health: {
      last_success_at: c.last_success_at,
      last_failure_at: c.last_failure_at,
      consecutive_failures: c.consecutive_failures,
      failing_since: c.failing_since,
      last_error: c.last_error,
    },
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

async function checkNameFree(ctx: AppContext, accountId: string, name: string, except?: string): Promise<void> {
  const [same] = await repo.channelsByName(ctx.store.db, accountId, [name]);
  if (same && same.id !== except)
    throw invalidRequest(
      `name: this account already has a channel named "${name}"; choose another name or PATCH that one`,
    );
}

export async function createChannel(ctx: AppContext, accountId: string, raw: unknown): Promise<NotificationChannel> {
  const body = parseBody(CreateChannelBody, raw);
  const sealer = sealerOf(ctx);
  const secret = channelSecretOf(body);
  checkTemplate('subject_template', body.subject_template);
  checkTemplate('body_template', body.body_template);
  await checkNameFree(ctx, accountId, body.name);
  if ((await repo.countChannels(ctx.store.db, accountId)) >= MAX_CHANNELS)
    throw invalidRequest(
      `channels: this account already has ${MAX_CHANNELS} channels; delete one it no longer needs first`,
    );
  await refuseTarget(ctx, secret);
  await checkRecipients(ctx, accountId, secret);
  const now = new Date().toISOString();
  const row: NotificationChannel = {
    id: newId('chn'),
    account_id: accountId,
    name: body.name,
    kind: secret.kind,
    target: redactedTarget(secret),
    secret: sealer.seal(JSON.stringify(secret), CHANNEL_SEAL_PURPOSE),
    subject_template: body.subject_template ?? null,
    body_template: body.body_template ?? null,
    is_default: body.default ? 1 : 0,
    state: 'active',
    disabled_at: null,
    disabled_reason: null,
    failing_since: null,
    consecutive_failures: 0,
    last_success_at: null,
    last_failure_at: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
  await repo.insertChannel(ctx.store.db, row);
  return row;
}

/** The account's channels, by name (the API's list and the dashboard's). */
export const listChannels = (ctx: Pick<AppContext, 'store'>, accountId: string) =>
  repo.listChannels(ctx.store.db, accountId);

export async function findChannel(ctx: Pick<AppContext, 'store'>, accountId: string, id: string) {
  const row = CHANNEL_ID.test(id) ? await repo.getChannel(ctx.store.db, accountId, id) : undefined;
  if (!row) throw notFound(`no channel ${id.slice(0, 40)}`);
  return row;
}

export async function updateChannel(
  ctx: AppContext,
  accountId: string,
  id: string,
  raw: unknown,
): Promise<NotificationChannel> {
  const body = parseBody(UpdateChannelBody, raw);
  const c = await findChannel(ctx, accountId, id);
  if (!Object.keys(body).length)
    throw invalidRequest(
      'body: give at least one of name, url (or kind and its fields), subject_template, body_template, default, state',
    );
  const now = new Date().toISOString();
  const patch: Partial<NotificationChannel> = { updated_at: now };
  if (body.name !== undefined && body.name !== c.name) {
    await checkNameFree(ctx, accountId, body.name, c.id);
    patch.name = body.name;
  }
  const { name: _n, subject_template, body_template, default: isDefault, state, ...fields } = body;
  if (Object.values(fields).some((v) => v !== undefined)) {
    // A new destination replaces the old one whole (its secret is never read back to merge).
    const secret = channelSecretOf(fields);
    await refuseTarget(ctx, secret);
    await checkRecipients(ctx, accountId, secret, c.id);
    Object.assign(patch, {
      kind: secret.kind,
      target: redactedTarget(secret),
      secret: sealerOf(ctx).seal(JSON.stringify(secret), CHANNEL_SEAL_PURPOSE),
    });
  }
  checkTemplate('subject_template', subject_template);
  checkTemplate('body_template', body_template);
  if (subject_template !== undefined) patch.subject_template = subject_template;
  if (body_template !== undefined) patch.body_template = body_template;
  if (isDefault !== undefined) patch.is_default = isDefault ? 1 : 0;
  // A new destination or state "active" re-enables with a clean slate.
  if (state === 'disabled' && c.state !== 'disabled')
    Object.assign(patch, { state: 'disabled', disabled_at: now, disabled_reason: 'disabled by its owner' });
  else if (state === 'active' || patch.secret)
    Object.assign(patch, {
      state: 'active',
      disabled_at: null,
      disabled_reason: null,
      failing_since: null,
      consecutive_failures: 0,
    });
  await repo.updateChannel(ctx.store.db, accountId, id, patch);
  return { ...c, ...patch };
}

export async function deleteChannel(ctx: Pick<AppContext, 'store'>, accountId: string, id: string): Promise<void> {
  if (!CHANNEL_ID.test(id) || !(await repo.deleteChannel(ctx.store.db, accountId, id)))
    throw notFound(`no channel ${id.slice(0, 40)}`);
}

/** Sends a test message now (outside the outbox: nothing is retried) and says how the channel answered; the route charges a delivered one. */
export async function testChannel(
  ctx: AppContext,
  accountId: string,
  id: string,
  publicUrl: string,
  engine: AppContext['engine'] = ctx.engine,
) {
  const c = await findChannel(ctx, accountId, id);
  const secret = JSON.parse(sealerOf(ctx).open(c.secret, CHANNEL_SEAL_PURPOSE)) as ChannelSecret;
  const n = notifyDeps(ctx.config);
  const at = new Date().toISOString();
  const sent = await sendToChannel(
    {
      engine,
      redact: ctx.redact,
      smtpUrl: n.smtpUrl,
      smtpFrom: n.smtpFrom,
      telegramApiUrl: n.telegramApiUrl,
    },
    secret,
    c,
    testData(publicUrl, at),
    `test.${c.id}.${Date.now()}`,
  );
  return { delivered: sent.ok, response_status: sent.status, error: sent.error, duration_ms: sent.durationMs };
}

/** A monitor's `notify` names as channel ids of its account; 400 naming the first unknown. */
export async function channelIdsOf(
  ctx: Pick<AppContext, 'store'>,
  accountId: string,
  names: string[],
): Promise<string[]> {
  const found = await repo.channelsByName(ctx.store.db, accountId, names);
  const byName = new Map(found.map((c) => [c.name, c.id]));
  names.forEach((n, i) => {
    if (!byName.has(n))
      throw invalidRequest(
        `notify[${i}]: this account has no channel named "${n.slice(0, 64)}"; create it with POST /v1/channels`,
      );
  });
  return [...new Set(names.map((n) => byName.get(n)!))];
}
