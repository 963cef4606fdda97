/**
 * The TypeScript SDK's channel methods against the service: create (by kind and by Apprise URL),
 * list, get, update (disable, rename), test (delivered and not), delete, a monitor naming its
 * channels in `notify`, and the API's refusal as a TrawlError with its code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Trawl, TrawlError } from '../../sdk/typescript/src/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const BOT_TOKEN = '123456789:AAHsecretTokenForTheBot_0123456789';

describe('TypeScript SDK: notification channels', () => {
  let svc: TestService;
  let slack: WebhookReceiver;
  let telegram: WebhookReceiver;
  beforeAll(async () => {
    slack = await startWebhookReceiver('/services/T0/B0/secret');
    telegram = await startWebhookReceiver('');
    svc = await startTestService('sqlite', { TRAWL_SECRET_KEY: 'k'.repeat(40), TRAWL_TELEGRAM_API_URL: telegram.url });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await slack?.close();
    await telegram?.close();
  });

  it('creates, lists, gets, updates, tests and deletes channels; a monitor names them', async () => {
    const { key } = await svc.newKey(5);
    const trawl = new Trawl({ apiKey: key, baseUrl: svc.url });
    const ops = await trawl.createChannel({ name: 'ops', kind: 'slack', webhook_url: slack.url });
    expect(ops).toMatchObject({ name: 'ops', kind: 'slack', state: 'active', default: false });
    expect(ops.target).not.toContain('secret');
    const phone = await trawl.createChannel({ name: 'phone', url: `tgram://${BOT_TOKEN}/-7`, default: true });
    expect(phone.target).toBe('tgram://****/-7');

    expect((await trawl.listChannels()).map((c) => c.name)).toEqual(['ops', 'phone']);
    expect((await trawl.getChannel(ops.channel_id)).health.consecutive_failures).toBe(0);

    expect(await trawl.testChannel(ops.channel_id)).toMatchObject({
      delivered: true,
      response_status: 204,
      error: null,
    });
    slack.failNext(1, 500);
    expect(await trawl.testChannel(ops.channel_id)).toMatchObject({ delivered: false, response_status: 500 });

    const off = await trawl.updateChannel(ops.channel_id, { state: 'disabled', name: 'ops-slack' });
    expect(off).toMatchObject({ name: 'ops-slack', state: 'disabled', disabled_reason: expect.any(String) });

    const m = await trawl.createMonitor({
      url: 'https://example.com/p',
      interval: '1h',
      watch: ['title'],
      webhook: 'https://hooks.example.com/t',
      notify: ['ops-slack'],
    });
    expect(m.notify).toEqual(['ops-slack']);
    await trawl.deleteMonitor(m.monitor_id);

    const refused = await trawl.createChannel({ name: 'phone', url: `tgram://${BOT_TOKEN}/-8` }).catch((e) => e);
    expect(refused).toBeInstanceOf(TrawlError);
    expect(refused).toMatchObject({ status: 400, code: 'invalid_request' });

    expect(await trawl.deleteChannel(phone.channel_id)).toMatchObject({ deleted: true, channel_id: phone.channel_id });
    const gone = await trawl.getChannel(phone.channel_id).catch((e) => e);
    expect(gone).toMatchObject({ status: 404, code: 'not_found' });
  });
});
