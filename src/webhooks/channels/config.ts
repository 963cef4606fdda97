/**
 * A channel's configuration: read from an Apprise-style URL (`mailto://`, `slack://`, `discord://`,
 * `msteams://`, `tgram://`, `json://`/`jsons://`) or from plain fields, into what its sender needs
 * (`ChannelSecret`, sealed at rest: webhook URLs and tokens are credentials) and the redacted
 * `target` its answers show. Every error names the field and says what to write instead.
 */
import { invalidRequest } from '../../errors.js';

export const CHANNEL_KINDS = ['email', 'slack', 'discord', 'msteams', 'telegram', 'json'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export type ChannelSecret =
  | { kind: 'email'; to: string[] }
  | { kind: 'slack' | 'discord' | 'msteams' | 'json'; url: string; headers?: Record<string, string> }
  | { kind: 'telegram'; token: string; chat_id: string };

/** The plain fields a channel may be given instead of `url`. */
export interface ChannelFields {
  url?: string;
  kind?: ChannelKind;
  to?: string[];
  webhook_url?: string;
  bot_token?: string;
  chat_id?: string;
}

const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;
const TELEGRAM_TOKEN = /^\d{3,20}:[A-Za-z0-9_-]{20,100}$/;
const CHAT_ID = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,40})$/;
const TOKEN = /^[A-Za-z0-9_-]{1,200}$/;

const bad = (field: string, msg: string) => invalidRequest(`${field}: ${msg}`);

function httpsUrl(field: string, raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw bad(field, 'must be an http or https URL');
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname)
    throw bad(field, 'must be an http or https URL');
  return u;
}

function recipients(field: string, list: string[]): string[] {
  const to = list.map((s) => decodeURIComponent(s.trim())).filter(Boolean);
  if (!to.length || to.length > 20) throw bad(field, 'must name 1 to 20 email addresses');
  for (const a of to)
    if (!EMAIL.test(a) || a.length > 254) throw bad(field, `"${a.slice(0, 60)}" is not an email address`);
  return to;
}

function telegram(field: string, token: string, chatId: string): ChannelSecret {
  if (!TELEGRAM_TOKEN.test(token)) throw bad(field, 'the bot token is <digits>:<letters>, as @BotFather gave it');
  if (!CHAT_ID.test(chatId)) throw bad(field, 'the chat id is a number (-100… for a group) or @channelname');
  return { kind: 'telegram', token, chat_id: chatId };
}

/** A plain https webhook URL of a known service (what the service's own page hands out). */
function knownWebhook(field: string, u: URL): ChannelSecret {
  const host = u.hostname.toLowerCase();
  const kind: ChannelKind | undefined =
    host === 'hooks.slack.com'
      ? 'slack'
      : /^(discord|discordapp)\.com$/.test(host) && u.pathname.startsWith('/api/webhooks/')
        ? 'discord'
        : /\.webhook\.office\.com$|^outlook\.office\.com$|\.logic\.azure\.com$/.test(host)
          ? 'msteams'
          : undefined;
  if (!kind)
    throw bad(
      field,
      `${host} is not a Slack, Discord or Teams webhook; for any other receiver use json://… or jsons://…`,
    );
  return { kind, url: u.href } as ChannelSecret;
}

/** An Apprise-style URL (or a known service's https webhook URL) read into the sender's configuration. */
export function parseChannelUrl(raw: string, field = 'url'): ChannelSecret {
  const scheme = /^([a-z]+):/i.exec(raw)?.[1]?.toLowerCase();
  if (scheme === 'mailto') {
    const u = new URL(raw.replace(/^mailto:(\/\/)?/i, 'mailto://'));
    if (u.password)
      throw bad(
        field,
        "an email channel sends through the operator's SMTP server (TRAWL_SMTP_URL); give only the recipients, mailto://alice@example.com",
      );
    const head = u.username ? [`${decodeURIComponent(u.username)}@${u.hostname}`] : [];
    return { kind: 'email', to: recipients(field, [...head, ...(u.searchParams.get('to')?.split(',') ?? [])]) };
  }
  if (scheme === 'http' || scheme === 'https') return knownWebhook(field, httpsUrl(field, raw));
  const rest = raw.slice((scheme?.length ?? 0) + 3).split(/[?#]/)[0];
  const parts = rest.split('/').filter(Boolean).map(decodeURIComponent);
  const tokens = (n: number[], form: string) => {
    if (!n.includes(parts.length) || parts.some((p) => !TOKEN.test(p))) throw bad(field, `must be ${form}`);
  };
  switch (scheme) {
    case 'slack':
      tokens([3], 'slack://TokenA/TokenB/TokenC (the three parts of https://hooks.slack.com/services/…)');
      return { kind: 'slack', url: `https://hooks.slack.com/services/${parts.join('/')}` };
    case 'discord':
      tokens([2], 'discord://WebhookID/WebhookToken (the two parts of https://discord.com/api/webhooks/…)');
      return { kind: 'discord', url: `https://discord.com/api/webhooks/${parts.join('/')}` };
    case 'msteams':
      tokens([3, 4], 'msteams://team/TokenA/TokenB/TokenC (or msteams://TokenA/TokenB/TokenC)');
      return parts.length === 4
        ? {
            kind: 'msteams',
            url: `https://${parts[0]}.webhook.office.com/webhookb2/${parts[1]}/IncomingWebhook/${parts[2]}/${parts[3]}`,
          }
        : {
            kind: 'msteams',
            url: `https://outlook.office.com/webhook/${parts[0]}/IncomingWebhook/${parts[1]}/${parts[2]}`,
          };
    case 'tgram':
      if (parts.length !== 2) throw bad(field, 'must be tgram://BotToken/ChatID');
      return telegram(field, parts[0], parts[1]);
    case 'json':
    case 'jsons': {
      const u = httpsUrl(field, `${scheme === 'jsons' ? 'https' : 'http'}://${raw.slice(scheme.length + 3)}`);
      const headers: Record<string, string> = {};
      // Credentials in the URL become Basic authentication (and are sealed with the rest).
      if (u.username || u.password)
        headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
      u.username = '';
      u.password = '';
      return { kind: 'json', url: u.href, ...(Object.keys(headers).length ? { headers } : {}) };
    }
    default:
      throw bad(field, 'must begin with mailto://, slack://, discord://, msteams://, tgram://, json:// or jsons://');
  }
}

/** The configuration from the body's fields: `url`, or `kind` with its own fields. */
export function channelSecretOf(f: ChannelFields): ChannelSecret {
  if (f.url !== undefined) {
    if (f.to || f.webhook_url || f.bot_token || f.chat_id)
      throw invalidRequest('url: give either url or kind with its fields, not both');
    const s = parseChannelUrl(f.url);
    if (f.kind && f.kind !== s.kind) throw bad('kind', `is ${f.kind} but url is a ${s.kind} channel`);
    return s;
  }
  switch (f.kind) {
    case undefined:
      throw invalidRequest('url: is required (an Apprise-style URL such as slack://…), or give kind and its fields');
    case 'email':
      if (!f.to) throw bad('to', 'is required for an email channel (an array of addresses)');
      return { kind: 'email', to: recipients('to', f.to) };
    case 'telegram':
      if (!f.bot_token) throw bad('bot_token', 'is required for a telegram channel');
      if (!f.chat_id) throw bad('chat_id', 'is required for a telegram channel');
      return telegram('bot_token', f.bot_token, f.chat_id);
    default:
      if (!f.webhook_url) throw bad('webhook_url', `is required for a ${f.kind} channel`);
      // Given by kind, any https receiver is accepted (a Slack-compatible relay, a test stand-in …).
      return { kind: f.kind, url: httpsUrl('webhook_url', f.webhook_url).href };
  }
}

/** Where a channel sends, shown without its secret part (`slack://hooks.slack.com/…/****`). */
export function redactedTarget(s: ChannelSecret): string {
  switch (s.kind) {
    case 'email':
      return `mailto://${s.to.join(',')}`;
    case 'telegram':
      return `tgram://****/${s.chat_id}`;
    default: {
      const u = new URL(s.url);
      return `${s.kind === 'json' ? (u.protocol === 'https:' ? 'jsons' : 'json') : s.kind}://${u.host}/…/****`;
    }
  }
}

/** The URL an HTTP channel posts to (the guard checks it on every send); none for email. */
export function channelHttpUrl(s: ChannelSecret, telegramApiUrl: string): string | undefined {
  if (s.kind === 'email') return undefined;
  if (s.kind === 'telegram') return `${telegramApiUrl.replace(/\/+$/, '')}/bot${s.token}/sendMessage`;
  return s.url;
}

/** The parts of a secret that must never appear in an error, a log line or an answer. */
export function secretParts(s: ChannelSecret): string[] {
  if (s.kind === 'email') return [];
  if (s.kind === 'telegram') return [s.token, s.token.split(':')[1]];
  const u = new URL(s.url);
  return [s.url, u.pathname, ...u.pathname.split('/').filter((p) => p.length >= 8), ...Object.values(s.headers ?? {})];
}
