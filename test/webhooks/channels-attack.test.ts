/** Attacks on notification messages without a service: templates that would spin, and page text that would become markup. */
import { describe, expect, it } from 'vitest';
import { ESCAPES, renderMessage, type NotifyData } from '../../src/webhooks/channels/message.js';
import { messageBody } from '../../src/webhooks/channels/send.js';
import { parseTemplate, renderTemplate, TemplateError } from '../../src/webhooks/channels/template.js';

const many = (n: number) => ({ changes: Array.from({ length: n }, (_, i) => ({ field: `f${i}` })) });

describe('templates that would hold the process', () => {
  it('cuts a render that visits too many nodes, even when it writes nothing', () => {
    // 300³ = 27 million visits with no output: the output cap alone never stops it.
    const t = '{{#each changes}}{{#each changes}}{{#each changes}}{{/each}}{{/each}}{{/each}}.';
    expect(renderTemplate(t, many(300), ESCAPES.text)).toMatch(/…$/);
  });

  it('refuses blocks nested deeper than 4, saying where', () => {
    const deep = `${'{{#each changes}}'.repeat(5)}x${'{{/each}}'.repeat(5)}`;
    expect(() => parseTemplate(deep)).toThrow(TemplateError);
    expect(() => parseTemplate(deep)).toThrow(/nest at most 4/);
    expect(() => parseTemplate(`${'{{#if a}}'.repeat(4)}x${'{{/if}}'.repeat(4)}`)).not.toThrow();
  });
});

const data = (title: string, n = 1): NotifyData => ({
  event: 'change.detected',
  headline: 'Changed',
  monitor: { id: 'mon_1', name: 'Lamp', url: 'https://shop.example/lamp' },
  page: { title, url: 'https://shop.example/lamp' },
  changes: Array.from({ length: n }, (_, i) => ({ field: `f${i}`, before: title, after: title })),
  run: { id: 'run_1', url: 'https://trawl.example/monitors/mon_1#run_1' },
  at: '2026-11-29T00:00:00.000Z',
});
const none = { subject_template: null, body_template: null };

describe('page text stays text wherever it lands', () => {
  it('a markdown link in a page title is no link in Teams', () => {
    const evil = '[Reset your password](https://evil.example/login) **urgent**';
    const card = messageBody({ kind: 'msteams', url: 'https://x.webhook.office.com/a' }, none, data(evil)) as {
      title: string;
      text: string;
    };
    for (const s of [card.title, card.text]) {
      expect(s).not.toContain('](');
      expect(s).not.toContain('**');
    }
  });

  it('a long message cut for Telegram or Slack never ends inside an entity', () => {
    // Escaping makes each & five characters; a cut at any place may land inside one.
    for (let pad = 0; pad < 6; pad++) {
      const title = `${'x'.repeat(pad)}${'&'.repeat(900)}`;
      const tg = messageBody({ kind: 'telegram', token: '1:a', chat_id: '1' }, none, data(title, 3)) as {
        text: string;
      };
      expect(tg.text).not.toMatch(/&[a-z#0-9]*…$/);
      const sl = messageBody({ kind: 'slack', url: 'https://hooks.slack.com/services/a' }, none, data(title, 3)) as {
        text: string;
      };
      expect(sl.text).not.toMatch(/&[a-z#0-9]*…$/);
    }
  });

  it('{{ in page text is printed, never rendered again', () => {
    const title = '{{ run.url }} {{#each changes}}x{{/each}} {{constructor}}';
    const m = renderMessage(none, data(title), ESCAPES.text);
    expect(m.subject).toBe(`Changed: ${title}`);
    expect(m.body).not.toContain('x{{/each}}x');
  });

  it('mentions in page text notify nobody on Slack or Discord', () => {
    const title = '<!channel> <!here> <@U123> @everyone @here';
    const sl = renderMessage(none, data(title), ESCAPES.slack).body;
    expect(sl).not.toMatch(/<[!@]/);
    const dc = renderMessage(none, data(title), ESCAPES.discord).body;
    expect(dc).not.toMatch(/@(everyone|here)/);
  });
});
