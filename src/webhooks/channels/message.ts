/**
 * A notification's words: the data a template reads (built by the monitor's side from the
 * event) and the default subject and body; rendered per target with its escaping, so page text
 * (a title with `<script>`, a price with `*`) is shown as text wherever it lands.
 */
import { renderTemplate, type Escape } from './template.js';

export interface ChangeLine {
  field: string;
  before: string;
  after: string;
  /** A short unified diff, for text. */
  diff?: string;
}

/** What a template may name (docs/API.md "Notifications" lists it). */
export interface NotifyData {
  event: string;
  /** "Changed", "Monitor failing", "Monitor recovered", "Channel disabled", "Test message". */
  headline: string;
  monitor: { id: string; name: string; url: string };
  page: { title: string; url: string };
  changes: ChangeLine[];
  run: { id: string; url: string };
  error?: string;
  consecutive_failures?: number;
  at: string;
}

export const DEFAULT_SUBJECT = '{{ headline }}: {{ page.title }}';
export const DEFAULT_BODY = [
  '{{ headline }}: {{ page.title }}',
  '{{ page.url }}',
  '{{#each changes}}',
  '{{ field }}: {{ before }} → {{ after }}',
  '{{#if diff}}{{ diff }}',
  '{{/if}}{{/each}}{{#if error}}',
  'Error: {{ error }} ({{ consecutive_failures }} failures in a row)',
  '{{/if}}',
  'Run: {{ run.url }}',
].join('\n');

const html: Escape = (s) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Escaping per target: what a value must become so the target shows it as the text it is. */
export const ESCAPES = {
  text: (s: string) => s,
  html,
  /** Slack mrkdwn: &, <, > are its only control characters (links, mentions). */
  slack: (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
  /** Teams renders HTML and markdown: both are made inert (markdown characters as numeric entities), so `[x](url)` is no link. */
  teams: (s: string) => html(s).replace(/[[\]()*_`~#|\\]/g, (c) => `&#${c.charCodeAt(0)};`),
  /** Discord markdown: formatting characters backslashed; mentions are also refused by allowed_mentions. */
  discord: (s: string) => s.replace(/([\\*_~`|>#[\]()-])/g, '\\$1').replace(/@/g, '@\u200b'),
} satisfies Record<string, Escape>;

export interface Templates {
  subject_template: string | null;
  body_template: string | null;
}

/** Subject (one line, plain text) and body, rendered with the channel's templates or the defaults. */
export function renderMessage(t: Templates, data: NotifyData, escape: Escape): { subject: string; body: string } {
  const subject = renderTemplate(t.subject_template ?? DEFAULT_SUBJECT, data, ESCAPES.text)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
  const body = renderTemplate(t.body_template ?? DEFAULT_BODY, data, escape)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { subject, body };
}
