/** Notification channels without a service: the template language, Apprise URLs and the messages' escaping. */
import { describe, expect, it } from 'vitest';
import { TrawlError } from '../../src/errors.js';
import { channelSecretOf, parseChannelUrl, redactedTarget } from '../../src/webhooks/channels/config.js';
import { ESCAPES, renderMessage } from '../../src/webhooks/channels/message.js';
import { parseTemplate, renderTemplate, TemplateError } from '../../src/webhooks/channels/template.js';
import { notifyData } from '../../src/monitors/notify.js';

const text = ESCAPES.text;

describe('template language', () => {
  const data = {
    monitor: { name: 'Lamp' },
    page: { url: 'https://shop.example/lamp' },
    changes: [
      { field: 'price', before: '10', after: '12' },
      { field: 'stock', before: 'yes', after: 'no' },
    ],
  };

  it('renders names, each and if', () => {
    expect(
      renderTemplate(
        '{{ monitor.name }} {{page.url}}:{{#each changes}} {{ field }}={{ before }}→{{ after }}{{/each}}{{#if error}} E{{else}} ok{{/if}}',
        data,
        text,
      ),
    ).toBe('Lamp https://shop.example/lamp: price=10→12 stock=yes→no ok');
  });

  it('never reaches the prototype: {{constructor}}, {{__proto__}} and friends are refused or empty', () => {
    for (const t of [
      '{{constructor}}',
      '{{__proto__}}',
      '{{ monitor.constructor }}',
      '{{#each __proto__}}x{{/each}}',
      '{{ page.prototype }}',
    ])
      expect(() => parseTemplate(t), t).toThrow(TemplateError);
    // Names that exist on every object's prototype but not on the data itself render as nothing.
    expect(renderTemplate('[{{ toString }}][{{ monitor.hasOwnProperty }}][{{ changes.map }}]', data, text)).toBe(
      '[][][]',
    );
  });

  it('has no raw output and no code', () => {
    expect(() => parseTemplate('{{{ page.url }}}')).toThrow(/raw output/);
    expect(() => parseTemplate('{{ page.url + 1 }}')).toThrow(TemplateError);
    expect(() => parseTemplate("{{ process.mainModule.require('fs') }}")).toThrow(TemplateError);
    expect(() => parseTemplate('{{#each changes}}')).toThrow(/never closed/);
    expect(() => parseTemplate('{{/if}}')).toThrow(/closes no open/);
  });

  it('escapes every value for the target: HTML in page text is inert in an HTML email', () => {
    const evil = { page: { title: '<img src=x onerror=alert(1)><script>alert(2)</script>' } };
    const out = renderTemplate('<b>{{ page.title }}</b>', evil, ESCAPES.html);
    expect(out).toBe('<b>&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;</b>');
    expect(renderTemplate('{{ t }}', { t: '<!channel> & <http://x|click>' }, ESCAPES.slack)).toBe(
      '&lt;!channel&gt; &amp; &lt;http://x|click&gt;',
    );
    expect(renderTemplate('{{ t }}', { t: '@everyone **bold**' }, ESCAPES.discord)).not.toMatch(/@everyone|\*\*/);
  });
});

describe('channel configuration', () => {
  it('reads Apprise URLs', () => {
    expect(parseChannelUrl('slack://T0AAAA/B0BBBB/abcdefgh12345678')).toEqual({
      kind: 'slack',
      url: 'https://hooks.slack.com/services/T0AAAA/B0BBBB/abcdefgh12345678',
    });
    expect(parseChannelUrl('discord://123456/tok_en-xyz')).toEqual({
      kind: 'discord',
      url: 'https://discord.com/api/webhooks/123456/tok_en-xyz',
    });
    expect(parseChannelUrl('msteams://acme/A1/B2/C3')).toMatchObject({
      kind: 'msteams',
      url: 'https://acme.webhook.office.com/webhookb2/A1/IncomingWebhook/B2/C3',
    });
    expect(parseChannelUrl('tgram://123456:ABCdefGHIjklMNOpqrSTUvwx/-1001234')).toEqual({
      kind: 'telegram',
      token: '123456:ABCdefGHIjklMNOpqrSTUvwx',
      chat_id: '-1001234',
    });
    expect(parseChannelUrl('mailto://alice@example.com?to=bob@example.com')).toEqual({
      kind: 'email',
      to: ['alice@example.com', 'bob@example.com'],
    });
    const j = parseChannelUrl('jsons://user:s3cretpass@hooks.example.com/in');
    expect(j).toMatchObject({ kind: 'json', url: 'https://hooks.example.com/in' });
    expect(JSON.stringify(redactedTarget(j))).not.toContain('s3cretpass');
  });

  it('refuses what it cannot send to, saying what to write', () => {
    const detail = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as TrawlError).detail;
      }
      throw new Error('accepted');
    };
    expect(detail(() => parseChannelUrl('ftp://x'))).toMatch(/must begin with mailto:\/\//);
    expect(detail(() => parseChannelUrl('mailto://me:pw@gmail.com'))).toMatch(/operator's SMTP/);
    expect(detail(() => parseChannelUrl('tgram://nottoken/1'))).toMatch(/BotFather/);
    expect(detail(() => parseChannelUrl('https://example.com/hook'))).toMatch(/json:\/\//);
    expect(detail(() => channelSecretOf({ kind: 'slack' }))).toMatch(/webhook_url: is required/);
    expect(detail(() => channelSecretOf({}))).toMatch(/url: is required/);
  });

  it('shows targets without their secret part', () => {
    const slack = redactedTarget(parseChannelUrl('slack://T0AAAA/B0BBBB/abcdefgh12345678'));
    expect(slack).toBe('slack://hooks.slack.com/…/****');
    const tg = redactedTarget(parseChannelUrl('tgram://123456:ABCdefGHIjklMNOpqrSTUvwx/-1001234'));
    expect(tg).toBe('tgram://****/-1001234');
  });
});

describe('the message a person reads', () => {
  const body = JSON.stringify({
    id: 'evt_1',
    event: 'change.detected',
    monitor_id: 'mon_1',
    url: 'https://shop.example/lamp',
    sequence: 3,
    changes: {
      title: { from: 'Lamp <b>old</b>', to: 'Lamp <script>x</script>' },
      price: { from: 10, to: 12.5 },
      description: {
        from: 'A lamp. It is bright. It has a switch. '.repeat(8),
        to: 'A lamp. It is very bright. It has a switch. '.repeat(8),
      },
    },
    at: '2026-11-29T00:00:00.000Z',
  });

  it('names the page, each change as before → after (text as a short diff) and links the run', () => {
    const data = notifyData(body, 'run_9', 'https://trawl.example.com/');
    const m = renderMessage({ subject_template: null, body_template: null }, data, ESCAPES.text);
    expect(m.subject).toBe('Changed: Lamp <script>x</script>');
    expect(m.body).toContain('price: 10 → 12.5');
    expect(m.body).toContain('https://shop.example/lamp');
    expect(m.body).toMatch(/^-.*It is bright/m);
    expect(m.body).toMatch(/^\+.*It is very bright/m);
    expect(m.body).toContain('Run: https://trawl.example.com/monitors/mon_1#run_9');
    const html = renderMessage({ subject_template: null, body_template: null }, data, ESCAPES.html);
    expect(html.body).not.toContain('<script>');
    expect(html.body).toContain('&lt;script&gt;');
  });

  it("renders the user's templates", () => {
    const data = notifyData(body, 'run_9', 'http://t');
    const m = renderMessage(
      { subject_template: '{{ monitor.name }} moved', body_template: '{{#each changes}}{{ field }};{{/each}}' },
      data,
      ESCAPES.text,
    );
    expect(m).toEqual({ subject: 'Lamp <script>x</script> moved', body: 'title;price;description;' });
  });
});
