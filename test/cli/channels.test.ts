/**
 * `trawl channels list|create|delete|test` against a running service (TRAWL_API_URL,
 * TRAWL_API_KEY): a channel made by Apprise URL (read from stdin) and by kind, listed with its
 * secret hidden, tested (delivered, and not: exit 1 with the status), named by id or name,
 * deleted; the server's refusals come through as the CLI's error.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const BIN = resolve(import.meta.dirname, '../../bin/trawl.js');
const HOOK_PATH = '/services/T0SECRET/B0SECRET/hookSecretPart42';
const BOT_TOKEN = '123456789:AAHsecretTokenForTheBot_0123456789';

function trawl(args: string[], env: Record<string, string>, stdin = '') {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    const child = execFile(
      process.execPath,
      [BIN, '--json', ...args],
      { env: { ...process.env, TRAWL_API_URL: '', TRAWL_API_KEY: '', ...env } },
      (e, stdout, stderr) => done({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(stdin);
  });
}
const parsed = (r: { stdout: string }) => JSON.parse(r.stdout.trim()) as Record<string, any>;

describe('trawl channels', () => {
  let svc: TestService;
  let slack: WebhookReceiver;
  let telegram: WebhookReceiver;
  beforeAll(async () => {
    slack = await startWebhookReceiver(HOOK_PATH);
    telegram = await startWebhookReceiver('');
    svc = await startTestService('sqlite', {
      TRAWL_SECRET_KEY: 'k'.repeat(40),
      TRAWL_TELEGRAM_API_URL: telegram.url,
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await slack?.close();
    await telegram?.close();
  });

  it('creates, lists, tests and deletes channels, never printing a secret', async () => {
    const { key } = await svc.newKey(5);
    const env = { TRAWL_API_URL: svc.url, TRAWL_API_KEY: key };

    const tg = await trawl(
      ['channels', 'create', 'phone', '--url', '-', '--default'],
      env,
      `tgram://${BOT_TOKEN}/-42\n`,
    );
    expect(tg.code, tg.stdout + tg.stderr).toBe(0);
    expect(parsed(tg).channel).toMatchObject({
      name: 'phone',
      kind: 'telegram',
      target: 'tgram://****/-42',
      default: true,
    });
    const sl = await trawl(
      ['channels', 'create', 'ops', '--kind', 'slack', '--webhook-url', slack.url, '--subject-template', 'Changed'],
      env,
    );
    expect(sl.code, sl.stdout).toBe(0);
    const slackId = parsed(sl).channel.channel_id as string;

    const listed = await trawl(['channels', 'list'], env);
    expect(parsed(listed).channels.map((c: { name: string }) => c.name)).toEqual(['ops', 'phone']);
    // Human output too: one line a channel, the secret hidden.
    const human = await new Promise<string>((done) =>
      execFile(process.execPath, [BIN, 'channels', 'list'], { env: { ...process.env, ...env } }, (_e, out) =>
        done(out),
      ),
    );
    expect(human.trim().split('\n')).toHaveLength(2);
    expect(human).toContain('tgram://****/-42');
    for (const out of [tg.stdout, sl.stdout, listed.stdout, human]) {
      expect(out).not.toContain('hookSecretPart42');
      expect(out).not.toContain('AAHsecretTokenForTheBot');
    }

    // Test by name, then by id; a failing receiver exits 1 with its status.
    const ok = await trawl(['channels', 'test', 'ops'], env);
    expect(ok.code).toBe(0);
    expect(parsed(ok)).toMatchObject({ channel_id: slackId, delivered: true, response_status: 204 });
    slack.failNext(1, 502);
    const bad = await trawl(['channels', 'test', slackId], env);
    expect(bad.code).toBe(1);
    expect(parsed(bad)).toMatchObject({ delivered: false, response_status: 502 });
    expect(slack.received).toHaveLength(2);

    // Refusals: the server's error code and detail.
    const dup = await trawl(['channels', 'create', 'ops', '--url', `tgram://${BOT_TOKEN}/-1`], env);
    expect(dup.code).toBe(1);
    expect(parsed(dup)).toMatchObject({ error: 'invalid_request', detail: expect.stringContaining('"ops"') });
    const unknown = await trawl(['channels', 'test', 'nope'], env);
    expect(parsed(unknown)).toMatchObject({
      error: 'not_found',
      detail: expect.stringContaining('trawl channels list'),
    });

    const del = await trawl(['channels', 'delete', 'phone'], env);
    expect(parsed(del)).toMatchObject({ deleted: true, channel_id: expect.stringMatching(/^chn_/) });
    expect(parsed(await trawl(['channels', 'list'], env)).channels).toHaveLength(1);
    const gone = await trawl(['channels', 'delete', parsed(del).channel_id], env);
    expect(parsed(gone)).toMatchObject({ error: 'not_found' });

    const none = await trawl(['channels', 'list'], {});
    expect(parsed(none)).toMatchObject({ error: 'invalid_request', detail: expect.stringContaining('TRAWL_API_URL') });
  }, 60_000);
});
