/**
 * A monitor's notifications to channels: the data a person's message is made from, read from
 * the stored event (the same body the webhook gets) when the message is sent, and the event that
 * says a channel was disabled. The sending itself is ../webhooks/channels/.
 */
import type { NotifyData, ChangeLine } from '../webhooks/channels/message.js';
import { unifiedDiff } from './textdiff.js';

/** Most characters of a value shown on its `before → after` line; longer text is shown as a diff. */
const VALUE_CHARS = 120;
const DIFF_BYTES = 1500;

const HEADLINES: Record<string, string> = {
  'change.detected': 'Changed',
  'monitor.failing': 'Monitor failing',
  'monitor.recovered': 'Monitor recovered',
  'channel.disabled': 'Channel disabled',
};

const shown = (v: unknown): string =>
  v === null || v === undefined ? '(none)' : typeof v === 'string' ? v : JSON.stringify(v);
const short = (s: string) => (s.length > VALUE_CHARS ? `${s.slice(0, VALUE_CHARS - 1)}…` : s);

/** One change as a person reads it: short values whole, text as a short diff, hashed values named. */
function changeLine(field: string, c: Record<string, unknown>): ChangeLine {
  if (typeof c.diff === 'string') {
    const diff = c.diff.length > DIFF_BYTES ? `${c.diff.slice(0, DIFF_BYTES)}\n…` : c.diff;
    return { field, before: '(long text)', after: '(long text)', diff };
  }
  if (c.omitted) return { field, before: '(too large to show)', after: '(too large to show)' };
  const before = shown(c.from);
  const after = shown(c.to);
  const text = typeof c.from === 'string' && typeof c.to === 'string';
  if (text && (before.length > VALUE_CHARS || after.length > VALUE_CHARS)) {
    const d = unifiedDiff(before, after, DIFF_BYTES);
    return { field, before: short(before), after: short(after), diff: d.truncated ? `${d.diff}\n…` : d.diff };
  }
  return { field, before: short(before), after: short(after) };
}

/** A page's name for the message: its title when a watched field has one, else host and path. */
function pageTitle(url: string, changes: Record<string, Record<string, unknown>>, seen?: string): string {
  const t = changes.title?.to ?? seen ?? changes.name?.to;
  if (typeof t === 'string' && t.trim()) return short(t.trim());
  try {
    const u = new URL(url);
    return short(`${u.host}${u.pathname === '/' ? '' : u.pathname}`);
  } catch {
    return short(url);
  }
}

/** The data of a notification, from the event body as stored, the page's title as last seen, and where the dashboard is. */
export function notifyData(eventBody: string, runId: string, publicUrl: string, seenTitle?: string): NotifyData {
  const e = JSON.parse(eventBody) as Record<string, unknown>;
  const url = String(e.url ?? '');
  const changes = (e.changes ?? {}) as Record<string, Record<string, unknown>>;
  const monitorId = String(e.monitor_id ?? '');
  const title = pageTitle(url, changes, seenTitle);
  return {
    event: String(e.event),
    headline: HEADLINES[String(e.event)] ?? String(e.event),
    monitor: { id: monitorId, name: title, url },
    page: { title, url },
    changes: Object.entries(changes).map(([f, c]) => changeLine(f, c)),
    run: { id: runId, url: `${publicUrl.replace(/\/+$/, '')}/monitors/${monitorId}#${runId}` },
    ...(typeof e.error === 'string' ? { error: e.error } : {}),
    ...(typeof e.consecutive_failures === 'number' ? { consecutive_failures: e.consecutive_failures } : {}),
    ...(typeof e.reason === 'string' ? { error: `${String(e.channel_name)}: ${e.reason}` } : {}),
    at: String(e.at ?? ''),
  };
}

/** The data of a test message (POST /v1/channels/{id}/test). */
export function testData(publicUrl: string, at: string): NotifyData {
  const url = 'https://example.com/product/42';
  return {
    event: 'test',
    headline: 'Test message',
    monitor: { id: 'mon_test', name: 'example.com/product/42', url },
    page: { title: 'Example product', url },
    changes: [{ field: 'price', before: '19.99', after: '17.49' }],
    run: { id: 'run_test', url: `${publicUrl.replace(/\/+$/, '')}/monitors` },
    at,
  };
}
