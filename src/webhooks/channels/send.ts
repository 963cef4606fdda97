/**
 * One send of a notification to a channel: the message rendered for the target (Slack mrkdwn,
 * Discord markdown, a Teams MessageCard, Telegram HTML, an HTML + text email, a JSON POST) and
 * sent — HTTP through the engine's guarded client (SSRF check on the resolved address of every
 * send, no redirects followed), email through the operator's SMTP server. A failure is an
 * outcome, never a throw; its error has the channel's secrets and the configured ones removed.
 */
import { createTransport, type Transporter } from 'nodemailer';
import type { Engine } from '../../engine/index.js';
import { createRedactor, type Redactor } from '../../redact.js';
import { answered, DELIVERY_TIMEOUT_MS, notAnswered, type Sent } from '../send.js';
import { channelHttpUrl, secretParts, type ChannelSecret } from './config.js';
import { ESCAPES, renderMessage, type NotifyData, type Templates } from './message.js';

export interface ChannelSendDeps {
  engine: Pick<Engine, 'http'>;
  redact: Redactor;
  /** The operator's SMTP server (TRAWL_SMTP_URL) and sender (TRAWL_SMTP_FROM). */
  smtpUrl?: string;
  smtpFrom?: string;
  /** The Bot API's base (TRAWL_TELEGRAM_API_URL). */
  telegramApiUrl: string;
}

const MAX_ANSWER_BYTES = 64 * 1024;
const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
/** A cut of markup (HTML, mrkdwn) that never ends inside an entity or a tag: Telegram refuses such a message outright. */
const cutMarkup = (s: string, n: number) =>
  s.length > n ? `${s.slice(0, n - 1).replace(/&[A-Za-z0-9#]*$|<[^<>]*$/, '')}…` : s;

/** The request an HTTP channel makes: its JSON body for this message (exported for its tests). */
export function messageBody(s: Exclude<ChannelSecret, { kind: 'email' }>, t: Templates, data: NotifyData): unknown {
  switch (s.kind) {
    case 'slack': {
      const m = renderMessage(t, data, ESCAPES.slack);
      return { text: cutMarkup(`*${ESCAPES.slack(m.subject)}*\n${m.body}`, 3900), unfurl_links: false };
    }
    case 'discord': {
      const m = renderMessage(t, data, ESCAPES.discord);
      return { content: cut(`**${ESCAPES.discord(m.subject)}**\n${m.body}`, 2000), allowed_mentions: { parse: [] } };
    }
    case 'msteams': {
      const m = renderMessage(t, data, ESCAPES.teams);
      return {
        '@type': 'MessageCard',
        '@context': 'https://schema.org/extensions',
        summary: m.subject,
        title: ESCAPES.teams(m.subject),
        text: cutMarkup(m.body, 20_000).replace(/\n/g, '<br>'),
        potentialAction: [
          { '@type': 'OpenUri', name: 'Open the run', targets: [{ os: 'default', uri: data.run.url }] },
        ],
      };
    }
    case 'telegram': {
      const m = renderMessage(t, data, ESCAPES.html);
      return {
        chat_id: s.chat_id,
        text: cutMarkup(`<b>${ESCAPES.html(m.subject)}</b>\n${m.body}`, 4000),
        parse_mode: 'HTML',
        disable_web_page_preview: true,
      };
    }
    case 'json': {
      const m = renderMessage(t, data, ESCAPES.text);
      // Apprise's JSON shape (version, title, message, type), with the data it was made from.
      return { version: '1.0', title: m.subject, message: m.body, type: 'info', data };
    }
  }
}

const transports = new Map<string, Transporter>();
const transportFor = (url: string) => {
  let t = transports.get(url);
  if (!t) transports.set(url, (t = createTransport(url)));
  return t;
};

async function sendEmail(
  deps: ChannelSendDeps,
  s: { to: string[] },
  t: Templates,
  data: NotifyData,
  key: string,
): Promise<Sent> {
  const started = Date.now();
  if (!deps.smtpUrl)
    return {
      ok: false,
      status: null,
      error: 'email is not set up on this service: the operator sets TRAWL_SMTP_URL',
      durationMs: 0,
    };
  const text = renderMessage(t, data, ESCAPES.text);
  const html = renderMessage(t, data, ESCAPES.html);
  await transportFor(deps.smtpUrl).sendMail({
    from: deps.smtpFrom ?? 'Trawl <trawl@localhost>',
    to: s.to,
    subject: text.subject,
    text: text.body,
    html: `<div style="font-family:sans-serif;white-space:pre-wrap">${html.body}</div>`,
    // The idempotency key: a mail client shows a second copy with the same Message-ID as one.
    messageId: `<${key}@trawl>`,
    headers: { 'X-Trawl-Event': data.event },
  });
  return { ok: true, status: 250, error: null, durationMs: Date.now() - started };
}

/**
 * Sends one message to a channel. `key` is the delivery's idempotency key (event id + channel
 * id): the Message-ID of an email, the `Idempotency-Key` header of an HTTP send.
 */
export async function sendToChannel(
  deps: ChannelSendDeps,
  s: ChannelSecret,
  t: Templates,
  data: NotifyData,
  key: string,
): Promise<Sent> {
  const started = Date.now();
  const redact = createRedactor(secretParts(s));
  const clean = (e: string) => deps.redact(redact(e));
  try {
    if (s.kind === 'email') return await sendEmail(deps, s, t, data, key);
    const res = await deps.engine.http.request(channelHttpUrl(s, deps.telegramApiUrl)!, {
      method: 'POST',
      body: JSON.stringify(messageBody(s, t, data)),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Trawl-Notify/1',
        'idempotency-key': key,
        ...('headers' in s ? s.headers : {}),
      },
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxBytes: MAX_ANSWER_BYTES,
      followRedirect: () => false,
    });
    return answered(res, `${s.kind} receiver`, started);
  } catch (e) {
    // An SMTP refusal carries the server's reply code (5xx, 4xx).
    const smtp = (e as { responseCode?: unknown }).responseCode;
    if (s.kind === 'email')
      return {
        ok: false,
        status: typeof smtp === 'number' ? smtp : null,
        error: clean(`the SMTP server refused or could not be reached: ${(e as Error).message}`),
        durationMs: Date.now() - started,
      };
    return notAnswered(e, clean, started);
  }
}
