/**
 * The events a monitor sends (contract section 5) and their bodies:
 * `{"id","event","monitor_id","url","sequence", …, "at"}`. One event is written with the run that
 * found it, in the run's transaction, with its first delivery (the outbox; ../store/repos/webhooks.ts).
 * A string value over 16 KiB (watched markdown …) is sent as a capped unified `diff` with
 * `from_sha256`/`to_sha256` instead of whole `from`/`to`, and the body stays under 256 KiB.
 */
import { createHash } from 'node:crypto';
import { newId, webhooks } from '../store/index.js';
import type { Db } from '../store/repos/accounts.js';
import type { Changes } from './diff.js';
import type { Value } from './fields.js';
import { unifiedDiff } from './textdiff.js';
import { MAX_BODY_BYTES } from '../webhooks/index.js';

export const EVENT_TYPES = ['change.detected', 'monitor.failing', 'monitor.recovered'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** A string value above this (UTF-8 bytes) is sent as a diff. */
export const LARGE_STRING_BYTES = 16 * 1024;
/** Every event body stays under this (the outbox's limit, the same for job events). */
export { MAX_BODY_BYTES };
/** Room for all diffs of one event together (the rest of the body has what is left), and for one. */
const DIFF_BUDGET_BYTES = 192 * 1024;
const DIFF_MAX_BYTES = 64 * 1024;

/** Whether the monitor (its `events` column) sends this type. */
export const sends = (eventsJson: string | null | undefined, type: EventType): boolean =>
  (eventsJson ? (JSON.parse(eventsJson) as string[]) : ['change.detected']).includes(type);

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const sha256 = (v: Value) =>
  v === null
    ? null
    : createHash('sha256')
        .update(typeof v === 'string' ? v : JSON.stringify(v), 'utf8')
        .digest('hex');
const isLarge = (v: Value) => typeof v === 'string' && bytes(v) > LARGE_STRING_BYTES;

/** Changes as sent: small values whole, large strings as a diff with both sides' SHA-256. */
export function compactChanges(changes: Changes): Record<string, unknown> {
  const large = Object.keys(changes).filter((f) => isLarge(changes[f].from) || isLarge(changes[f].to));
  const cap = large.length ? Math.min(DIFF_MAX_BYTES, Math.floor(DIFF_BUDGET_BYTES / large.length)) : 0;
  const out: Record<string, unknown> = {};
  for (const [f, c] of Object.entries(changes)) {
    if (!large.includes(f)) {
      out[f] = c;
      continue;
    }
    const text = (v: Value) => (v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
    const { diff, truncated } = unifiedDiff(text(c.from), text(c.to), cap);
    out[f] = {
      diff,
      ...(truncated ? { diff_truncated: true } : {}),
      from_sha256: sha256(c.from),
      to_sha256: sha256(c.to),
    };
  }
  return out;
}

/**
 * The body, held under MAX_BODY_BYTES: should other values still be too large together (big
 * arrays, many fields), the largest are replaced by their hashes (`{"from_sha256","to_sha256","omitted":true}`).
 */
export function changeEventBody(e: {
  id: string;
  monitorId: string;
  url: string;
  sequence: number;
  changes: Changes;
  at: string;
}): string {
  const changes = compactChanges(e.changes);
  const body = () =>
    JSON.stringify({
      id: e.id,
      event: 'change.detected',
      monitor_id: e.monitorId,
      url: e.url,
      sequence: e.sequence,
      changes,
      at: e.at,
    });
  let s = body();
  const bySize = Object.keys(changes).sort(
    (a, b) => bytes(JSON.stringify(changes[b])) - bytes(JSON.stringify(changes[a])),
  );
  for (const f of bySize) {
    if (bytes(s) < MAX_BODY_BYTES) break;
    const c = e.changes[f];
    changes[f] = { from_sha256: sha256(c.from), to_sha256: sha256(c.to), omitted: true };
    s = body();
  }
  return s;
}

export function healthEventBody(e: {
  id: string;
  type: 'monitor.failing' | 'monitor.recovered';
  monitorId: string;
  url: string;
  sequence: number;
  failures: number;
  error?: string;
  at: string;
}): string {
  return JSON.stringify({
    id: e.id,
    event: e.type,
    monitor_id: e.monitorId,
    url: e.url,
    sequence: e.sequence,
    consecutive_failures: e.failures,
    ...(e.type === 'monitor.failing' ? { error: e.error ?? null } : {}),
    at: e.at,
  });
}

interface Context {
  monitorId: string;
  accountId: string;
  runId: string;
  at: string;
  /** Set when the run's process hands the delivery to its queue itself (the relay leaves it until then). */
  handedUntil?: string | null;
}

/** Every delivery an event write made: the webhook's and one per notification channel. */
const idsOf = (r: { deliveryId?: string; channelDeliveryIds: string[] } | undefined): string[] =>
  r ? [...(r.deliveryId ? [r.deliveryId] : []), ...r.channelDeliveryIds] : [];

/** Writes a change.detected event (id chosen by the run, which records it) and its deliveries. Returns their ids. */
export async function writeChangeEvent(
  trx: Db,
  ctx: Context & { eventId: string; changes: Changes },
): Promise<string[]> {
  const r = await webhooks.writeEvent(trx, ctx, (sequence, url) => ({
    id: ctx.eventId,
    body: changeEventBody({
      id: ctx.eventId,
      monitorId: ctx.monitorId,
      url,
      sequence,
      changes: ctx.changes,
      at: ctx.at,
    }),
  }));
  return idsOf(r);
}

/**
 * monitor.failing (the run that makes FAILING_AFTER failures in a row) or monitor.recovered (the
 * first success after that): to the webhook if the monitor opted in (`events`), and to its
 * notification channels always (a person wants to know the watching stopped). Returns the delivery ids.
 */
export async function writeHealthEvent(
  trx: Db,
  type: 'monitor.failing' | 'monitor.recovered',
  ctx: Context & { events: string | null; failures: number; error?: string },
): Promise<string[]> {
  const id = newId('evt');
  const r = await webhooks.writeEvent(trx, { ...ctx, webhook: sends(ctx.events, type) }, (sequence, url) => ({
    id,
    body: healthEventBody({
      id,
      type,
      monitorId: ctx.monitorId,
      url,
      sequence,
      failures: ctx.failures,
      error: ctx.error,
      at: ctx.at,
    }),
  }));
  return idsOf(r);
}

/**
 * channel.disabled, in the transaction that disabled the channel: to the monitor's webhook (the
 * channel's owner hears of it where monitor.failing goes) and its other channels, not to the
 * disabled one. Body: {"id","event","monitor_id","url","sequence","channel_id","channel_name","reason","at"}.
 */
export async function writeChannelDisabledEvent(
  trx: Db,
  ctx: Context & { channelId: string; channelName: string; reason: string },
): Promise<string[]> {
  const id = newId('evt');
  const r = await webhooks.writeEvent(trx, ctx, (sequence, url) => ({
    id,
    body: JSON.stringify({
      id,
      event: 'channel.disabled',
      monitor_id: ctx.monitorId,
      url,
      sequence,
      channel_id: ctx.channelId,
      channel_name: ctx.channelName,
      reason: ctx.reason,
      at: ctx.at,
    }),
  }));
  return idsOf(r);
}
