/**
 * The dashboard's Channels page in headless Chromium under its own CSP: add a channel by kind and
 * by Apprise URL (secrets never shown again, nor written back after a refusal), the API's detail
 * on a refusal, a test message with the channel's response status (delivered and failed),
 * disable/enable, delete, CSRF, and an axe-core audit. Screenshots go to a temporary directory
 * (printed); two are copied to /work/notes/screens/ when that directory exists.
 */
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGS } from '../../src/engine/fetch/chromium-launch.js';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const chromiumPath = findChromium(process.env.CHROMIUM_PATH);
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const HOOK_PATH = '/services/T0SECRET/B0SECRET/hookSecretPart42';
const BOT_TOKEN = '123456789:AAHsecretTokenForTheBot_0123456789';
const NOTES_SCREENS = '/work/notes/screens';

describe.skipIf(!chromiumPath)('the Channels page in Chromium', () => {
  let svc: TestService;
  let slack: WebhookReceiver;
  let telegram: WebhookReceiver;
  let browser: Browser;
  const shots = mkdtempSync(join(tmpdir(), 'trawl-channels-'));
  const errors: string[] = [];

  beforeAll(async () => {
    slack = await startWebhookReceiver(HOOK_PATH);
    telegram = await startWebhookReceiver('');
    svc = await startTestService('sqlite', {
      TRAWL_SECRET_KEY: 'k'.repeat(40),
      TRAWL_TELEGRAM_API_URL: telegram.url,
    });
    browser = await chromium.launch({ executablePath: chromiumPath!, headless: true, args: ARGS });
    console.log(`channels screenshots: ${shots}`);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await slack?.close();
    await telegram?.close();
  });

  const shot = (p: Page, name: string) => p.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  const noSecret = async (p: Page) => {
    const text = await p.content();
    expect(text).not.toContain('hookSecretPart42');
    expect(text).not.toContain('AAHsecretTokenForTheBot');
  };
  const row = (p: Page, name: string) => p.locator(`tr[data-channel="${name}"]`);

  it('adds, tests, disables, enables and deletes channels, showing health and never a secret', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const p = await context.newPage();
    // A CSP violation (an inline script or handler) shows as a console error; the refusals' 400s are expected.
    p.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
    });
    p.on('dialog', (d) => void d.accept());
    await p.goto(`${svc.url}/signup`);
    await p.fill('#email', 'chan@example.com');
    await p.fill('#password', 'correct horse battery');
    await p.click('button[type=submit]');
    await p.waitForURL(/\/login/);
    await p.fill('#email', 'chan@example.com');
    await p.fill('#password', 'correct horse battery');
    await p.click('button[type=submit]');
    await p.waitForURL(`${svc.url}/`);

    await p.click('nav >> text=Channels');
    await p.waitForURL(`${svc.url}/channels`);
    expect(await p.textContent('.empty')).toContain('No channels yet');

    // By kind: Slack with its webhook URL.
    await p.fill('#c-name', 'ops-slack');
    await p.selectOption('#c-kind', 'slack');
    await p.fill('#c-webhook', slack.url);
    await p.fill('#c-subject', '{{monitor.url}} changed');
    await p.click('form[action="/channels"] button[type=submit]');
    await p.waitForSelector('tr[data-channel="ops-slack"]');
    expect(await p.textContent('.notice.ok')).toContain('“ops-slack” added');
    expect(await row(p, 'ops-slack').textContent()).toContain('Slack');
    await noSecret(p);

    // By Apprise URL: Telegram, a default channel.
    await p.fill('#c-name', 'phone');
    await p.fill('#c-url', `tgram://${BOT_TOKEN}/-100200300`);
    await p.check('input[name=default]');
    await p.click('form[action="/channels"] button[type=submit]');
    await p.waitForSelector('tr[data-channel="phone"]');
    expect(await row(p, 'phone').textContent()).toContain('(default)');
    expect(await row(p, 'phone').textContent()).toContain('tgram://****/-100200300');
    await noSecret(p);

    // A refusal shows the API's detail; the name comes back, the secret does not.
    await p.fill('#c-name', 'phone');
    await p.fill('#c-url', `tgram://${BOT_TOKEN}/-42`);
    await p.click('form[action="/channels"] button[type=submit]');
    await p.waitForSelector('.notice.error');
    expect(await p.textContent('.notice.error')).toContain('already has a channel named "phone"');
    expect(await p.inputValue('#c-name')).toBe('phone');
    expect(await p.inputValue('#c-url')).toBe('');
    await noSecret(p);
    await p.goto(`${svc.url}/channels`);
    await p.fill('#c-name', 'nothing');
    await p.click('form[action="/channels"] button[type=submit]');
    await p.waitForSelector('.notice.error');
    expect((await p.textContent('.notice.error'))!.length).toBeGreaterThan(20);

    // Send a test: delivered, with the receiver's status.
    await row(p, 'ops-slack').locator('button', { hasText: 'Send a test' }).click();
    await p.waitForSelector('[data-testid=test-result]');
    expect(await p.getAttribute('[data-testid=test-result]', 'data-status')).toBe('204');
    expect(await p.textContent('.notice.ok')).toContain('delivered: the channel answered 204');
    expect(slack.received).toHaveLength(1);
    expect(JSON.parse(slack.received[0].body).text).toBeTruthy();
    await shot(p, '01-channels-test-delivered');

    // A failing receiver: not delivered, its status shown; the test does not change health.
    slack.failNext(1, 503);
    await row(p, 'ops-slack').locator('button', { hasText: 'Send a test' }).click();
    await p.waitForSelector('.notice.error');
    expect(await p.getAttribute('[data-testid=test-result]', 'data-status')).toBe('503');
    expect(await p.textContent('.notice.error')).toContain('not delivered: the channel answered 503');
    expect(await row(p, 'ops-slack').locator('[data-testid=failures]').textContent()).toBe('0');
    await noSecret(p);

    // Telegram's test reaches the Bot API stand-in at /bot<token>/sendMessage.
    await row(p, 'phone').locator('button', { hasText: 'Send a test' }).click();
    await p.waitForSelector('[data-testid=test-result]');
    expect(telegram.received).toHaveLength(1);

    // Disable, then enable.
    await row(p, 'ops-slack').locator('button', { hasText: 'Disable' }).click();
    await p.waitForSelector('tr[data-channel="ops-slack"] [data-testid=state] strong');
    expect(await row(p, 'ops-slack').locator('[data-testid=state]').textContent()).toContain('disabled by its owner');
    await shot(p, '02-channels-disabled');
    await row(p, 'ops-slack').locator('button', { hasText: 'Enable' }).click();
    await p.waitForSelector('.notice.ok >> text=enabled');
    expect(await row(p, 'ops-slack').locator('[data-testid=state]').textContent()).toBe('active');

    // Delete (the confirm dialog is accepted).
    await row(p, 'phone').locator('button', { hasText: 'Delete' }).click();
    await p.waitForSelector('.notice.ok >> text=Channel deleted');
    expect(await row(p, 'phone').count()).toBe(0);

    // A post without the form's CSRF token is refused, and nothing changes.
    const forged = await context.request.post(`${svc.url}/channels`, {
      form: { name: 'forged', kind: 'slack', webhook_url: slack.url },
    });
    expect(forged.status()).toBe(403);
    expect(await (await context.request.get(`${svc.url}/channels`)).text()).not.toContain('forged');

    expect(errors).toEqual([]);
    await context.close();
    if (existsSync(NOTES_SCREENS))
      for (const n of ['01-channels-test-delivered', '02-channels-disabled'])
        copyFileSync(join(shots, `${n}.png`), join(NOTES_SCREENS, `${n}.png`));
  }, 90_000);

  it('passes an accessibility audit (axe-core, WCAG 2 A/AA: no serious or critical violation)', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 }, bypassCSP: true });
    const p = await context.newPage();
    await p.goto(`${svc.url}/login`);
    await p.fill('#email', 'chan@example.com');
    await p.fill('#password', 'correct horse battery');
    await p.click('button[type=submit]');
    await p.waitForURL(`${svc.url}/`);
    await p.goto(`${svc.url}/channels`);
    expect(await row(p, 'ops-slack').count()).toBe(1);
    await p.addScriptTag({ path: AXE });
    const found = await p.evaluate(async () => {
      const r = await (
        window as unknown as {
          axe: {
            run(ctx: Document, o: object): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }>;
          };
        }
      ).axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] });
      return r.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.nodes.length})`);
    });
    expect(found).toEqual([]);
    await context.close();
  }, 60_000);

  it("attaches channels to a monitor from the monitor's page, and detaches them", async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const p = await context.newPage();
    p.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
    });
    await p.goto(`${svc.url}/login`);
    await p.fill('#email', 'chan@example.com');
    await p.fill('#password', 'correct horse battery');
    await p.click('button[type=submit]');
    await p.waitForURL(`${svc.url}/`);
    await p.goto(`${svc.url}/monitors`);
    await p.fill('#m-url', new URL('/p', slack.url).href);
    await p.fill('#m-webhook', new URL('/hook', slack.url).href);
    await p.click('form[action="/monitors"] button[type=submit]');
    await p.waitForURL(/\/monitors\/mon_/);
    const box = p.locator('input[name=notify][value="ops-slack"]');
    expect(await box.isChecked()).toBe(false);
    await box.check();
    await p.click('form[action$="/notify"] button[type=submit]');
    await p.waitForSelector('.notice.ok >> text=Channels saved');
    expect(await box.isChecked()).toBe(true);
    const id = /mon_[0-9A-Za-z]+/.exec(p.url())![0];
    const rows = await svc.store.db.selectFrom('monitor_channels').selectAll().where('monitor_id', '=', id).execute();
    expect(rows).toHaveLength(1);
    await box.uncheck();
    await p.click('form[action$="/notify"] button[type=submit]');
    await p.waitForSelector('.notice.ok >> text=Channels saved');
    expect(await box.isChecked()).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
