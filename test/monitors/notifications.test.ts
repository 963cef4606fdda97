/**
 * Monitor notifications through the real service, on SQLite and PostgreSQL: a local SMTP server
 * and local Slack, Discord, Teams, Telegram and JSON stand-ins each get exactly one message per
 * change (also when a receiver fails first and recovers), a message a person reads (the page,
 * before → after, the run's link), user templates rendered inert, health in the channel's GET,
 * and no secret (SMTP password, bot token, webhook URL path) in any answer or stored error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET_KEY = 'k'.repeat(40);
const SMTP_PASS = 'smtp-Pa55word-xyz';
const BOT_TOKEN = '123456789:AAHsecretTokenForTheBot_0123456789';
const HOOK_PATH = '/services/T0SECRET/B0SECRET/hookSecretPart42';

async function call(svc: TestService, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, any> };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const page = (title: string, price: number) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p class="price">$${price}</p><p>A paragraph long enough to be the main content of this small test page.</p></main></body></html>`;

describe.each(DIALECTS)('notifications on %s', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  let smtp: SmtpReceiver;
  let hook: WebhookReceiver;
  const stand: Record<'slack' | 'discord' | 'msteams' | 'telegram' | 'json', WebhookReceiver> = {} as never;
  let title = 'Lamp';
  let price = 10;

  beforeAll(async () => {
    site = await startFixtureServer({
      '/p': (_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page(title, price)),
    });
    smtp = await startSmtpReceiver({ user: 'mailer', pass: SMTP_PASS });
    hook = await startWebhookReceiver();
    for (const k of ['slack', 'discord', 'msteams', 'json'] as const) stand[k] = await startWebhookReceiver(HOOK_PATH);
    stand.telegram = await startWebhookReceiver('');
    svc = await startTestService(dialect, {
      TRAWL_MIN_INTERVAL_SECONDS: '1',
      TRAWL_WEBHOOK_RETRY_BASE_MS: '10',
      TRAWL_WEBHOOK_MAX_ATTEMPTS: '5',
      TRAWL_SECRET_KEY: SECRET_KEY,
      TRAWL_SMTP_URL: `smtp://mailer:${SMTP_PASS}@127.0.0.1:${smtp.port}`,
      TRAWL_SMTP_FROM: 'Trawl <alerts@trawl.test>',
      TRAWL_TELEGRAM_API_URL: stand.telegram.url,
      TRAWL_PUBLIC_URL: 'https://trawl.test',
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    await smtp?.close();
    await hook?.close();
    for (const r of Object.values(stand)) await r?.close();
  });

  /** Every channel kind, named after its kind. */
  async function channels(key: string, extra: Record<string, unknown> = {}) {
    const bodies: Record<string, unknown>[] = [
      { name: 'mail', kind: 'email', to: ['buyer@example.com'] },
      { name: 'slack', kind: 'slack', webhook_url: stand.slack.url },
      { name: 'discord', kind: 'discord', webhook_url: stand.discord.url },
      { name: 'teams', kind: 'msteams', webhook_url: stand.msteams.url },
      { name: 'tg', url: `tgram://${BOT_TOKEN}/-100200300` },
      { name: 'json', kind: 'json', webhook_url: stand.json.url },
    ];
    const out: Record<string, any> = {};
    for (const b of bodies) {
      const r = await call(svc, 'POST', '/v1/channels', key, { ...b, ...extra });
      expect(r.status, r.text).toBe(201);
      out[b.name as string] = r.body.channel;
    }
    return out;
  }
  async function monitor(key: string, notify: string[]): Promise<string> {
    const r = await call(svc, 'POST', '/v1/monitors', key, {
      url: `${site.url}/p`,
      interval: '1h',
      watch: ['title', 'price'],
      schema: { price: 'number' },
      webhook: hook.url,
      notify,
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.monitor.notify).toEqual([...notify].sort());
    await call(svc, 'PATCH', `/v1/monitors/${r.body.monitor.monitor_id}`, key, { state: 'paused' });
    return r.body.monitor.monitor_id;
  }
  const run = async (key: string, id: string) => (await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {})).body.run;
  const counts = () => ({
    mail: smtp.mails.length,
    ...Object.fromEntries(Object.entries(stand).map(([k, r]) => [k, r.received.length])),
  });

  it('sends one message per change to every kind of channel, a person can read it, and the secrets stay hidden', async () => {
    const { key } = await svc.newKey(20);
    const made = await channels(key);
    // Answers show where a channel sends, never the secret part.
    const listed = await call(svc, 'GET', '/v1/channels', key);
    for (const text of [listed.text, JSON.stringify(made)]) {
      for (const secret of [BOT_TOKEN, BOT_TOKEN.split(':')[1], 'hookSecretPart42', HOOK_PATH, SMTP_PASS, SECRET_KEY])
        expect(text).not.toContain(secret);
    }
    expect(made.tg.target).toBe('tgram://****/-100200300');
    expect(made.slack.target).toMatch(/^slack:\/\/127\.0\.0\.1:\d+\/…\/\*\*\*\*$/);

    title = 'Lamp <img src=x onerror=alert(1)>';
    price = 10;
    const id = await monitor(key, ['mail', 'slack', 'discord', 'teams', 'tg', 'json']);
    await run(key, id); // the baseline: nothing to tell
    await sleep(300);
    expect(counts()).toEqual({ mail: 0, slack: 0, discord: 0, msteams: 0, telegram: 0, json: 0 });

    price = 12;
    const changed = await run(key, id);
    expect(changed.event_id).toMatch(/^evt_/);
    await smtp.waitFor(1);
    for (const r of Object.values(stand)) await r.waitFor(1);
    await hook.waitFor(1);
    await sleep(500); // nothing more comes
    expect(counts()).toEqual({ mail: 1, slack: 1, discord: 1, msteams: 1, telegram: 1, json: 1 });

    const runLink = `https://trawl.test/monitors/${id}#${changed.run_id}`;
    const mail = smtp.mails[0];
    expect(mail.to).toEqual(['buyer@example.com']);
    expect(mail.from).toBe('alerts@trawl.test');
    expect(mail.user).toBe('mailer');
    expect(mail.subject).toContain('Changed:');
    expect(mail.text).toContain('price: 10 → 12');
    expect(mail.text).toContain(runLink);
    // Page text in the HTML part is text, not markup.
    expect(mail.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    const html = mail.text.slice(mail.text.indexOf('<div'));
    expect(html).not.toContain('<img');

    const slack = JSON.parse(stand.slack.received[0].body);
    expect(slack.text).toContain('price: 10 → 12');
    expect(slack.text).toContain('&lt;img');
    expect(stand.slack.received[0].headers['idempotency-key']).toBe(`${changed.event_id}.${made.slack.channel_id}`);
    const discord = JSON.parse(stand.discord.received[0].body);
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    expect(discord.content).toContain('price: 10 → 12');
    const teams = JSON.parse(stand.msteams.received[0].body);
    expect(teams['@type']).toBe('MessageCard');
    expect(teams.potentialAction[0].targets[0].uri).toBe(runLink);
    const tg = JSON.parse(stand.telegram.received[0].body);
    expect(tg).toMatchObject({ chat_id: '-100200300', parse_mode: 'HTML' });
    expect(tg.text).toContain('&lt;img');
    const json = JSON.parse(stand.json.received[0].body);
    expect(json.data.changes).toEqual(expect.arrayContaining([{ field: 'price', before: '10', after: '12' }]));
    expect(json.data.run.url).toBe(runLink);

    // Health in the channel's GET.
    const got = await call(svc, 'GET', `/v1/channels/${made.slack.channel_id}`, key);
    expect(got.body.channel.health).toMatchObject({ consecutive_failures: 0, failing_since: null });
    expect(got.body.channel.health.last_success_at).toEqual(expect.any(String));
    // The monitor's own deliveries list shows its webhook's, not the channels'.
    const dl = await call(svc, 'GET', `/v1/monitors/${id}/deliveries`, key);
    expect(dl.body.deliveries).toHaveLength(1);
  });

  it('sends exactly one message when a receiver fails first and then recovers, and keeps no secret in the error', async () => {
    const { key } = await svc.newKey(20);
    const r = await call(svc, 'POST', '/v1/channels', key, {
      name: 'flaky',
      kind: 'slack',
      webhook_url: stand.slack.url,
    });
    expect(r.status, r.text).toBe(201);
    const mail = await call(svc, 'POST', '/v1/channels', key, { name: 'mail', url: 'mailto://ops@example.com' });
    expect(mail.status, mail.text).toBe(201);
    const id = await monitor(key, ['flaky', 'mail']);
    price = 20;
    await run(key, id);
    const slackBefore = stand.slack.received.length;
    const mailBefore = smtp.mails.length;
    stand.slack.failNext(2, 500);
    smtp.failNext(1);
    price = 21;
    const changed = await run(key, id);
    await stand.slack.waitFor(slackBefore + 3);
    await smtp.waitFor(mailBefore + 1);
    await sleep(500);
    const mine = stand.slack.received.slice(slackBefore);
    expect(mine.map((g) => g.answered)).toEqual([500, 500, 204]);
    // Every attempt carries the same idempotency key: one event, one channel.
    expect(new Set(mine.map((g) => g.headers['idempotency-key']))).toEqual(
      new Set([`${changed.event_id}.${r.body.channel.channel_id}`]),
    );
    expect(smtp.mails.length).toBe(mailBefore + 1);
    const health = (await call(svc, 'GET', `/v1/channels/${r.body.channel.channel_id}`, key)).body.channel.health;
    expect(health.consecutive_failures).toBe(0);
    expect(health.last_failure_at).toEqual(expect.any(String));
    expect(health.last_error).toBe('the slack receiver answered 500');
    // Stored errors and attempt log rows never hold the webhook URL's secret path.
    const rows = await svc.store.db.selectFrom('delivery_attempts').select(['url', 'error']).execute();
    expect(JSON.stringify(rows)).not.toContain('hookSecretPart42');
    expect(JSON.stringify(rows)).not.toContain(SMTP_PASS);
  });

  it('refuses unsafe templates, answers a test message, deletes, and names unknown channels', async () => {
    const { key } = await svc.newKey(20);
    for (const t of ['{{constructor}}', '{{ __proto__.x }}', '{{{ page.url }}}', '{{#each changes}}'])
      expect(
        (
          await call(svc, 'POST', '/v1/channels', key, {
            name: 'x',
            kind: 'json',
            webhook_url: stand.json.url,
            body_template: t,
          })
        ).body,
      ).toMatchObject({
        error: 'invalid_request',
        detail: expect.stringMatching(/^body_template: /),
      });
    const c = await call(svc, 'POST', '/v1/channels', key, {
      name: 'tpl',
      kind: 'json',
      webhook_url: stand.json.url,
      subject_template: 'Watch {{ page.title }}',
      body_template: '{{#each changes}}{{ field }}: {{ before }} -> {{ after }}{{/each}}',
    });
    expect(c.status, c.text).toBe(201);
    const before = stand.json.received.length;
    const t = await call(svc, 'POST', `/v1/channels/${c.body.channel.channel_id}/test`, key);
    expect(t.body).toMatchObject({ status: 'ok', delivered: true, response_status: 204, error: null });
    const sent = JSON.parse(stand.json.received[before].body);
    expect(sent).toMatchObject({ title: 'Watch Example product', message: 'price: 19.99 -> 17.49' });

    const dup = await call(svc, 'POST', '/v1/channels', key, { name: 'tpl', url: 'mailto://a@example.com' });
    expect(dup.body.detail).toMatch(/^name: this account already has a channel named "tpl"/);
    const unknown = await call(svc, 'POST', '/v1/monitors', key, {
      url: `${site.url}/p`,
      interval: '1h',
      watch: ['title'],
      webhook: hook.url,
      notify: ['nope'],
    });
    expect(unknown.body).toMatchObject({
      error: 'invalid_request',
      detail: expect.stringMatching(/^notify\[0\]: .*"nope"/),
    });
    // Another account sees none of it.
    const other = await svc.newKey(5);
    expect((await call(svc, 'GET', `/v1/channels/${c.body.channel.channel_id}`, other.key)).status).toBe(404);
    expect((await call(svc, 'DELETE', `/v1/channels/${c.body.channel.channel_id}`, key)).body.deleted).toBe(true);
    expect((await call(svc, 'GET', `/v1/channels/${c.body.channel.channel_id}`, key)).status).toBe(404);
  });
});

describe('channels without TRAWL_SECRET_KEY, and channel URLs into private networks', () => {
  let bare: TestService;
  let strict: TestService;
  beforeAll(async () => {
    bare = await startTestService('sqlite');
    strict = await startTestService('sqlite', { TRAWL_ALLOW_PRIVATE_NETWORK: '0', TRAWL_SECRET_KEY: SECRET_KEY });
  }, 60_000);
  afterAll(async () => {
    await bare?.stop();
    await strict?.stop();
  });

  it('tells the operator to set TRAWL_SECRET_KEY', async () => {
    const { key } = await bare.newKey(5);
    const r = await call(bare, 'POST', '/v1/channels', key, { name: 'a', url: 'mailto://a@example.com' });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/TRAWL_SECRET_KEY/);
  });

  it('refuses 127.0.0.1 and 169.254.169.254 with 403 forbidden_target', async () => {
    const { key } = await strict.newKey(5);
    for (const b of [
      { name: 'a', kind: 'slack', webhook_url: 'http://127.0.0.1:9/hook' },
      { name: 'b', url: 'json://169.254.169.254/latest/meta-data' },
      { name: 'c', kind: 'discord', webhook_url: 'http://[::1]:9/x' },
    ]) {
      const r = await call(strict, 'POST', '/v1/channels', key, b);
      expect(r.status, r.text).toBe(403);
      expect(r.body.error).toBe('forbidden_target');
      expect(r.body.detail).toMatch(/^url: /);
    }
  });
});
