/**
 * Monitors as an account keeps them, for the API and the dashboard alike: validation (each error
 * names its field), create / update / delete, and the public shape of a monitor, a run and a
 * delivery. The runs themselves are monitors/ (scheduler, runner, outbox).
 */
import { z } from 'zod';
import type { Config } from '../config.js';
import { compileSchema, type Engine } from '../engine/index.js';
import { isMarketplaceId, marketplaceForUrl, MARKETPLACE_IDS, urlBelongsTo } from '../engine/marketplace/registry.js';
import { invalidRequest, notFound, TrawlError } from '../errors.js';
import { refuseForbidden } from './targets.js';
import { httpUrl, oneOf, parseBody, text } from '../contract/validation.js';
import { checkPageOptions, checkPreparingActions, pageOptions } from '../contract/page-options.js';
import { checkSessionFor } from './browser-sessions.js';
import { sessionName } from '../contract/schemas.js';
import type { MonitorScrapeOptions } from '../monitors/runner.js';
import {
  accounts,
  channels,
  monitors as repo,
  newId,
  snapshots,
  webhooks,
  type DeliveryAttempt,
  type Monitor,
  type MonitorRun,
  type Store,
} from '../store/index.js';
import { parseConditions } from '../monitors/diff.js';
import { EVENT_TYPES } from '../monitors/events.js';
import { ADVERTISER_FIELDS, watchableFields } from '../monitors/fields.js';
import { advertiserFromUrl } from '../engine/meta-ads/index.js';
import { parseInterval } from '../monitors/interval.js';
import { notifyList } from '../contract/schemas.js';
import { channelIdsOf } from './channels.js';

/** The names of the channels a monitor notifies (beside the account's default channels). */
export async function monitorNotify(ctx: Pick<MonitorContext, 'store'>, monitorId: string): Promise<string[]> {
  return (await channels.monitorChannelNames(ctx.store.db, [monitorId])).get(monitorId) ?? [];
}

export interface MonitorContext {
  store: Store;
  engine: Pick<Engine, 'http'>;
  config: Pick<
    Config,
    'minIntervalSeconds' | 'metaAdLibraryBaseUrl' | 'maxMonitorsPerAccount' | 'secretKey' | 'secretKeyPrevious'
  >;
  /** Told when a monitor's due time moved, so the scheduler looks again. */
  wake?(): void;
}

const watchList = z
  .array(text(1, 64), {
    error: (iss) => (iss.input === undefined ? 'is required' : 'must be an array of 1 to 20 field names'),
  })
  .min(1, { error: 'must be an array of 1 to 20 field names' })
  .max(20, { error: 'must be an array of 1 to 20 field names' });

/** Event types a monitor may send (contract section 5); `change.detected` alone by default. */
const DEFAULT_EVENTS = ['change.detected'];
const eventList = z
  .array(oneOf([...EVENT_TYPES]), { error: `must be an array of event types: ${EVENT_TYPES.join(', ')}` })
  .min(1, { error: `must list at least one of ${EVENT_TYPES.join(', ')}` })
  .max(EVENT_TYPES.length, { error: 'must not list an event type twice' })
  .refine((a) => new Set(a).size === a.length, { error: 'must not list an event type twice' });

export const CreateMonitorBody = z.strictObject({
  url: httpUrl(),
  interval: z.unknown().optional().describe('required: <integer><s|m|h|d>, e.g. "30m"'),
  watch: watchList,
  webhook: httpUrl(),
  marketplace: z.string({ error: 'must be a marketplace id such as "amazon_us"' }).optional(),
  schema: z.unknown().optional().describe('Schema object for pages that are not marketplace products'),
  conditions: z
    .unknown()
    .optional()
    .describe('[{"field","op","value"}]: changed|increased|decreased|lt|lte|gt|gte|eq|ne'),
  events: eventList
    .optional()
    .describe('Events sent to the webhook: change.detected (default), monitor.failing, monitor.recovered'),
  notify: notifyList.optional().describe('Notification channels (by name) told of each change and failure'),
  // How the page is fetched on each run (contract section 9); never from the result cache.
  ...pageOptions,
  session: sessionName.optional().describe('A saved browser session (/v1/sessions) each run reads the page with'),
});

export const UpdateMonitorBody = z.strictObject({
  interval: z.unknown().optional(),
  watch: watchList.optional(),
  webhook: httpUrl().optional(),
  state: oneOf(['active', 'paused']).optional(),
  conditions: z.unknown().optional(),
  events: eventList.optional(),
  /** The channels (by name) this monitor notifies, replacing its list ([] removes them all). */
  notify: notifyList.optional(),
  /** `active` re-enables a disabled webhook (so does any `webhook`); `disabled` stops sending. */
  webhook_state: oneOf(['active', 'disabled']).optional(),
  // Each given replaces the monitor's own (null removes it).
  actions: pageOptions.actions.nullable(),
  headers: pageOptions.headers.nullable(),
  cookies: pageOptions.cookies.nullable(),
  mobile: pageOptions.mobile.nullable(),
  location: pageOptions.location.nullable(),
  session: sessionName.nullable().optional(),
});

const SCRAPE_OPTION_KEYS = ['actions', 'headers', 'cookies', 'mobile', 'location', 'session'] as const;

/** The scrape options of a monitor as stored (null when it has none), checked against its URL and kind. */
function scrapeOptionsOf(url: string, o: MonitorScrapeOptions, advertiser: boolean): string | null {
  const given = Object.fromEntries(
    SCRAPE_OPTION_KEYS.filter((k) => o[k] !== undefined && o[k] !== null).map((k) => [k, o[k]]),
  );
  if (!Object.keys(given).length) return null;
  if (advertiser)
    throw invalidRequest(
      `${Object.keys(given)[0]}: a monitor of an advertiser's ads reads the Ad Library, not a page; it takes no page options`,
    );
  checkPageOptions({ url, ...given }, 30_000);
  checkPreparingActions(o.actions, 'a monitor');
  return JSON.stringify(given);
}

/** Headers and cookies are shown by name only: their values are often session tokens. */
function presentScrapeOptions(raw: string | null) {
  if (!raw) return {};
  const o = JSON.parse(raw) as MonitorScrapeOptions;
  return {
    ...o,
    ...(o.headers ? { headers: Object.fromEntries(Object.keys(o.headers).map((k) => [k, '[hidden]'])) } : {}),
    ...(o.cookies ? { cookies: o.cookies.map((c) => ({ ...c, value: '[hidden]' })) } : {}),
  };
}

/** First run of a monitor (or after resuming): anywhere in its first interval, so monitors created together keep apart for good (their phases stay spread; run now gives an immediate baseline). */
const firstRunAt = (intervalSeconds: number, now = Date.now()) =>
  new Date(now + Math.floor(Math.random() * intervalSeconds * 1000)).toISOString();

function checkWatch(
  watch: string[],
  schema: Record<string, unknown> | null,
  marketplace: string | null,
  advertiser = false,
): void {
  // Fields of the schema, whichever form it is written in (JSON Schema names them in `properties`).
  const allowed = watchableFields(schema && compileSchema(schema).schema, marketplace, advertiser);
  const ads = watch.filter((f) => (ADVERTISER_FIELDS as readonly string[]).includes(f));
  if (advertiser && ads.length && ads.length !== watch.length)
    throw invalidRequest(
      `watch: ${ADVERTISER_FIELDS.join(' and ')} watch the advertiser's ads and cannot be mixed with page fields (${watch.filter((f) => !ads.includes(f)).join(', ')}); make a second monitor`,
    );
  const seen = new Set<string>();
  watch.forEach((f, i) => {
    if (seen.has(f)) throw invalidRequest(`watch[${i}]: "${f}" is listed twice`);
    seen.add(f);
    if (!allowed.has(f)) {
      const hint = schema ? 'a key of schema' : marketplace ? 'a product field' : 'add a schema with this field';
      throw invalidRequest(
        `watch[${i}]: "${f}" cannot be produced for this page; use ${[...allowed].join(', ')} (or ${hint})`,
      );
    }
  });
}

/**
 * A new monitor needs credit to run on (its runs are what it costs) and room under the
 * account's quota. Counted, not locked: racing creations may pass the quota by a few.
 */
async function checkAllowance(ctx: MonitorContext, accountId: string): Promise<void> {
  const account = await accounts.findAccountById(ctx.store.db, accountId);
  if (!account || Number(account.credits) <= 0) throw new TrawlError('insufficient_credits');
  const max = ctx.config.maxMonitorsPerAccount;
  if ((await repo.countMonitors(ctx.store.db, accountId)) >= max) {
    throw invalidRequest(
      `monitors: this account already has ${max} monitors, the most it may have; delete one it no longer needs first`,
    );
  }
}

export async function createMonitor(ctx: MonitorContext, accountId: string, raw: unknown): Promise<Monitor> {
  const body = parseBody(CreateMonitorBody, raw);
  const intervalSeconds = parseInterval(body.interval, ctx.config.minIntervalSeconds);
  const url = new URL(body.url);
  let marketplace: string | null;
  if (body.marketplace !== undefined) {
    if (!isMarketplaceId(body.marketplace))
      throw invalidRequest(
        `marketplace: "${body.marketplace.slice(0, 40)}" is not a marketplace id; use one of ${MARKETPLACE_IDS.join(', ')}`,
      );
    if (!urlBelongsTo(url, body.marketplace))
      throw invalidRequest(`url: ${url.hostname} is not a page of marketplace ${body.marketplace}`);
    marketplace = body.marketplace;
  } else {
    marketplace = marketplaceForUrl(url) ?? null;
  }
  const schema =
    body.schema === undefined ? null : (compileSchema(body.schema), body.schema as Record<string, unknown>);
  const advertiser = !marketplace && !schema && !!advertiserFromUrl(body.url, ctx.config.metaAdLibraryBaseUrl);
  checkWatch(body.watch, schema, marketplace, advertiser);
  const conditions = parseConditions(body.conditions, body.watch);
  const scrapeOptions = scrapeOptionsOf(body.url, body as MonitorScrapeOptions, advertiser);
  const notify = body.notify ? await channelIdsOf(ctx, accountId, body.notify) : [];
  if (body.session) await checkSessionFor(ctx, accountId, body.session, body.url);
  await checkAllowance(ctx, accountId);
  await refuseForbidden(ctx, body.url, 'url: ');
  await refuseForbidden(ctx, body.webhook, 'webhook: ');
  const now = new Date().toISOString();
  const row: Monitor = {
    id: newId('mon'),
    account_id: accountId,
    url: body.url,
    interval: body.interval as string,
    interval_seconds: intervalSeconds,
    watch: JSON.stringify(body.watch),
    webhook: body.webhook,
    marketplace,
    schema: schema ? JSON.stringify(schema) : null,
    conditions: conditions ? JSON.stringify(conditions) : null,
    scrape_options: scrapeOptions,
    state: 'active',
    health: 'ok',
    consecutive_failures: 0,
    last_values: null,
    last_success_at: null,
    last_run_at: null,
    next_run_at: firstRunAt(intervalSeconds),
    baseline_at: null,
    created_at: now,
    updated_at: now,
    event_sequence: 0,
    events: JSON.stringify(body.events ?? DEFAULT_EVENTS),
    webhook_state: 'active',
    webhook_disabled_at: null,
    webhook_disabled_reason: null,
    webhook_failing_since: null,
  };
  await repo.insertMonitor(ctx.store.db, row);
  if (notify.length) await channels.setMonitorChannels(ctx.store.db, row.id, notify);
  ctx.wake?.();
  return row;
}

const MONITOR_ID = /^mon_[0-9A-Za-z]{20}$/;

export async function findMonitor(ctx: Pick<MonitorContext, 'store'>, accountId: string, id: string): Promise<Monitor> {
  const row = MONITOR_ID.test(id) ? await repo.getMonitor(ctx.store.db, accountId, id) : undefined;
  if (!row) throw notFound(`no monitor ${id.slice(0, 40)}`);
  return row;
}

export async function updateMonitor(
  ctx: MonitorContext,
  accountId: string,
  id: string,
  raw: unknown,
): Promise<Monitor> {
  const body = parseBody(UpdateMonitorBody, raw);
  const m = await findMonitor(ctx, accountId, id);
  if (!Object.keys(body).length)
    throw invalidRequest(
      'body: give at least one of interval, watch, webhook, state, conditions, events, notify, webhook_state, actions, headers, cookies, mobile, location',
    );
  const patch: Partial<Monitor> = { updated_at: new Date().toISOString() };
  let intervalSeconds = m.interval_seconds;
  if (body.interval !== undefined) {
    intervalSeconds = parseInterval(body.interval, ctx.config.minIntervalSeconds);
    patch.interval = body.interval as string;
    patch.interval_seconds = intervalSeconds;
  }
  const watch: string[] = body.watch ?? JSON.parse(m.watch);
  if (body.watch) {
    checkWatch(
      body.watch,
      m.schema ? JSON.parse(m.schema) : null,
      m.marketplace,
      !m.marketplace && !m.schema && !!advertiserFromUrl(m.url, ctx.config.metaAdLibraryBaseUrl),
    );
    patch.watch = JSON.stringify(body.watch);
  }
  if (body.conditions !== undefined || body.watch) {
    const source = body.conditions !== undefined ? body.conditions : m.conditions ? JSON.parse(m.conditions) : null;
    const conditions = parseConditions(source, watch);
    patch.conditions = conditions ? JSON.stringify(conditions) : null;
  }
  if (body.webhook) {
    await refuseForbidden(ctx, body.webhook, 'webhook: ');
    patch.webhook = body.webhook;
  }
  if (body.events) patch.events = JSON.stringify(body.events);
  if (body.notify) await channels.setMonitorChannels(ctx.store.db, id, await channelIdsOf(ctx, accountId, body.notify));
  if (body.session) await checkSessionFor(ctx, accountId, body.session, m.url);
  if (SCRAPE_OPTION_KEYS.some((k) => body[k] !== undefined)) {
    const merged = {
      ...(m.scrape_options ? JSON.parse(m.scrape_options) : {}),
      ...Object.fromEntries(SCRAPE_OPTION_KEYS.filter((k) => body[k] !== undefined).map((k) => [k, body[k]])),
    };
    patch.scrape_options = scrapeOptionsOf(
      m.url,
      merged,
      !m.marketplace && !m.schema && !!advertiserFromUrl(m.url, ctx.config.metaAdLibraryBaseUrl),
    );
  }
  // A new webhook URL (or the same one given again) or webhook_state "active" re-enables a
  // disabled webhook with a clean slate; events failed meanwhile are sent again by a replay.
  if (body.webhook_state === 'disabled') {
    if (m.webhook_state !== 'disabled')
      Object.assign(patch, {
        webhook_state: 'disabled',
        webhook_disabled_at: patch.updated_at,
        webhook_disabled_reason: 'disabled by its owner',
      });
  } else if (body.webhook || body.webhook_state === 'active') {
    Object.assign(patch, {
      webhook_state: 'active',
      webhook_disabled_at: null,
      webhook_disabled_reason: null,
      webhook_failing_since: null,
    });
  }
  const state = body.state ?? m.state;
  patch.state = state;
  if (state === 'active' && (m.state === 'paused' || body.interval !== undefined)) {
    // Resumed, or a new interval: the next run keeps the monitor's phase when it can.
    const from = m.last_run_at ? Date.parse(m.last_run_at) + intervalSeconds * 1000 : Date.parse(m.next_run_at);
    patch.next_run_at =
      m.state === 'paused' || from <= Date.now()
        ? firstRunAt(intervalSeconds)
        : new Date(Math.min(from, Date.now() + intervalSeconds * 1000)).toISOString();
  }
  await repo.updateMonitor(ctx.store.db, accountId, id, patch);
  // Owner-disabled: the pending deliveries fail now (kept for a replay), as for a 410.
  if (patch.webhook_state === 'disabled')
    await webhooks.disableWebhook(ctx.store.db, id, 'disabled by its owner', patch.updated_at!);
  ctx.wake?.();
  return { ...m, ...patch };
}

export async function deleteMonitor(ctx: Pick<MonitorContext, 'store'>, accountId: string, id: string): Promise<void> {
  if (!MONITOR_ID.test(id) || !(await repo.deleteMonitor(ctx.store.db, accountId, id)))
    throw notFound(`no monitor ${id.slice(0, 40)}`);
}

const json = (s: string | null) => (s === null ? null : JSON.parse(s));

export function presentMonitor(m: Monitor) {
  return {
    monitor_id: m.id,
    url: m.url,
    interval: m.interval,
    interval_seconds: m.interval_seconds,
    watch: JSON.parse(m.watch) as string[],
    webhook: m.webhook,
    ...(m.marketplace ? { marketplace: m.marketplace } : {}),
    ...(m.schema ? { schema: JSON.parse(m.schema) } : {}),
    ...(m.conditions ? { conditions: JSON.parse(m.conditions) } : {}),
    ...presentScrapeOptions(m.scrape_options),
    events: JSON.parse(m.events) as string[],
    state: m.state,
    health: m.health,
    webhook_state: m.webhook_state,
    ...(m.webhook_state === 'disabled'
      ? { webhook_disabled_at: m.webhook_disabled_at, webhook_disabled_reason: m.webhook_disabled_reason }
      : {}),
    created_at: m.created_at,
    next_run_at: m.state === 'active' ? m.next_run_at : null,
    last_run_at: m.last_run_at,
  };
}

export function presentRun(r: MonitorRun) {
  return {
    run_id: r.id,
    trigger: r.trigger,
    status: r.status,
    due_at: r.due_at,
    started_at: r.started_at,
    finished_at: r.finished_at,
    credits: r.credits,
    status_code: r.status_code,
    values: json(r.values),
    changes: json(r.changes),
    event_id: r.event_id,
    error: r.error,
  };
}

/** A run as the runner returned it, its values expanded (large values are stored as snapshot references). */
export async function expandRun(ctx: Pick<MonitorContext, 'store'>, run: MonitorRun): Promise<MonitorRun> {
  return (await snapshots.expandRows(ctx.store.db, [run], 'values', 'changes'))[0];
}

/** Unchanged runs older than a day that the pruner counted instead of keeping: the total and per day. */
export async function collapsedRuns(ctx: Pick<MonitorContext, 'store'>, monitorId: string) {
  const days = await repo.unchangedRunCounts(ctx.store.db, monitorId);
  return {
    total: days.reduce((n, d) => n + Number(d.unchanged_runs), 0),
    days: days.map((d) => ({ day: d.day, runs: Number(d.unchanged_runs) })),
  };
}

export async function monitorDetail(ctx: Pick<MonitorContext, 'store'>, m: Monitor) {
  const [runs, [lastValues], collapsed] = await Promise.all([
    repo.listRuns(ctx.store.db, m.id, 10),
    snapshots.expandAll(ctx.store.db, [m.last_values]),
    collapsedRuns(ctx, m.id),
  ]);
  return {
    ...presentMonitor(m),
    notify: await monitorNotify(ctx, m.id),
    consecutive_failures: m.consecutive_failures,
    last_success_at: m.last_success_at,
    last_values: json(lastValues),
    last_runs: runs.map(presentRun),
    unchanged_runs_collapsed: collapsed.total,
  };
}

export async function listDeliveries(
  ctx: Pick<MonitorContext, 'store'>,
  monitorId: string,
  limit: number,
  deliveryId?: string,
) {
  const rows = await webhooks.listDeliveries(ctx.store.db, monitorId, limit, deliveryId);
  const attempts = await webhooks.attemptsOf(
    ctx.store.db,
    rows.map((r) => r.id),
  );
  const byDelivery = new Map<string, DeliveryAttempt[]>();
  for (const a of attempts) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
  return rows.map((d) => ({
    delivery_id: d.id,
    event_id: d.event_id,
    url: d.url,
    state: d.state,
    attempts: d.attempts,
    next_attempt_at: d.next_attempt_at,
    last_status: d.last_status,
    last_error: d.last_error,
    created_at: d.created_at,
    event: JSON.parse(d.body),
    attempt_log: (byDelivery.get(d.id) ?? []).map((a) => ({
      attempt: a.attempt,
      manual: !!a.manual,
      url: a.url,
      outcome: a.outcome,
      started_at: a.started_at,
      finished_at: a.finished_at,
      status_code: a.status_code,
      error: a.error,
      duration_ms: a.duration_ms,
    })),
  }));
}
