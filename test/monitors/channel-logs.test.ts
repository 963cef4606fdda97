/**
 * No channel secret in the service's log, at debug level, on SQLite and PostgreSQL: the SMTP
 * password, a Telegram bot token and a webhook URL's secret path stay out of every line across
 * creating channels (and a refused one), test messages (delivered, refused, unreachable), and
 * monitor messages that fail, are retried and finally go through (or give up).
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET_KEY = 'k'.repeat(40);
const SMTP_PASS = 'smtp-Pa55word-xyz';
const BOT_TOKEN = '123456789:AAHsecretTokenForTheBot_0123456789';
const HOOK_PATH = '/services/T0SECRET/B0SECRET/hookSecretPart42';
const SECRETS = [SMTP_PASS, BOT_TOKEN, BOT_TOKEN.split(':')[1], 'hookSecretPart42', 'T0SECRET', SECRET_KEY];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(DIALECTS)('channel secrets in debug logs on %s', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  let smtp: SmtpReceiver;
  let slack: WebhookReceiver;
  let telegram: WebhookReceiver;
  let hook: WebhookReceiver;
  const lines: string[] = [];
  let price = 10;

  beforeAll(async () => {
    site = await startFixtureServer({
      '/p': (_q, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<!doctype html><html><head><title>Lamp</title></head><body><main><h1>Lamp</h1><p class="price">$${price}</p><p>A paragraph long enough to be the main content of this page.</p></main></body></html>`,
          ),
    });
    smtp = await startSmtpReceiver({ user: 'mailer', pass: SMTP_PASS });
    slack = await startWebhookReceiver(HOOK_PATH);
    telegram = await startWebhookReceiver('');
    hook = await startWebhookReceiver();
    const out = new PassThrough();
    out.on('data', (c) => lines.push(...String(c).split('\n').filter(Boolean)));
    svc = await startTestService(
      dialect,
      {
        TRAWL_WEBHOOK_RETRY_BASE_MS: '10',
        TRAWL_WEBHOOK_MAX_ATTEMPTS: '3',
        TRAWL_SECRET_KEY: SECRET_KEY,
        TRAWL_SMTP_URL: `smtp://mailer:${SMTP_PASS}@127.0.0.1:${smtp.port}`,
        TRAWL_SMTP_FROM: 'Trawl <alerts@trawl.test>',
        TRAWL_TELEGRAM_API_URL: telegram.url,
      },
      { logger: { level: 'debug', stream: out } },
    );
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    for (const s of [site, smtp, slack, telegram, hook]) await s?.close();
  });

  async function call(key: string, method: string, path: string, body?: unknown) {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  it('keeps every secret out of every log line across create, test sends, failures and retries', async () => {
    const { key } = await svc.newKey(20);
    const made: Record<string, string> = {};
    for (const b of [
      { name: 'mail', kind: 'email', to: ['buyer@example.com'] },
      { name: 'slack', kind: 'slack', webhook_url: slack.url },
      { name: 'tg', url: `tgram://${BOT_TOKEN}/-100200300` },
      // Nothing listens there: a send fails before any answer (its error names the address only).
      { name: 'gone', kind: 'json', webhook_url: `http://127.0.0.1:9${HOOK_PATH}` },
    ]) {
      const r = await call(key, 'POST', '/v1/channels', b);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      made[b.name] = r.body.channel.channel_id;
    }
    // A refused create still echoes nothing of its URL into the log.
    expect((await call(key, 'POST', '/v1/channels', { name: 'bad', url: `tgram://${BOT_TOKEN}` })).status).toBe(400);

    // Test messages: delivered, refused by the receiver, refused by SMTP, unreachable.
    for (const id of Object.values(made)) await call(key, 'POST', `/v1/channels/${id}/test`, {});
    slack.failNext(1, 500);
    telegram.failNext(1, 401);
    smtp.failNext(1);
    for (const id of Object.values(made)) {
      const r = await call(key, 'POST', `/v1/channels/${id}/test`, {});
      expect(r.status).toBe(200);
      expect(r.body.delivered).toBe(false);
    }

    // A monitor's messages that fail, are retried and go through; 'gone' gives up after 3 attempts.
    const m = await call(key, 'POST', '/v1/monitors', {
      url: `${site.url}/p`,
      interval: '1h',
      watch: ['price'],
      schema: { price: 'number' },
      webhook: hook.url,
      notify: ['mail', 'slack', 'tg', 'gone'],
    });
    expect(m.status, JSON.stringify(m.body)).toBe(201);
    const id = m.body.monitor.monitor_id;
    await call(key, 'PATCH', `/v1/monitors/${id}`, { state: 'paused' });
    await call(key, 'POST', `/v1/monitors/${id}/run`, {});
    const before = { slack: slack.received.length, tg: telegram.received.length, mail: smtp.mails.length };
    slack.failNext(2, 503);
    telegram.failNext(1, 429);
    smtp.failNext(1);
    price = 12;
    await call(key, 'POST', `/v1/monitors/${id}/run`, {});
    // slack 503, 503, 204; telegram 429, 200; mail 451, 250.
    await slack.waitFor(before.slack + 3);
    await telegram.waitFor(before.tg + 2);
    await smtp.waitFor(before.mail + 1);
    const gone = async () => (await call(key, 'GET', `/v1/channels/${made.gone}`)).body.channel.health;
    for (let i = 0; i < 200 && (await gone()).consecutive_failures < 1; i++) await sleep(50);
    expect((await gone()).last_error).toBeTruthy();
    await sleep(300);

    // Debug level really was on: a line for every request, the 8 test sends among them.
    expect(lines.filter((l) => /"level":20/.test(l) && /\/test"/.test(l))).toHaveLength(8);
    if (process.env.DUMP_LOGS) console.log(lines.join('\n'));
    const leaks = lines.filter((l) => SECRETS.some((s) => l.includes(s)));
    expect(leaks).toEqual([]);
  }, 60_000);
});
