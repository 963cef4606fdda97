/**
 * One monitor run: claim it (and its credit) → scrape with the same engine as /v1/scrape →
 * the watched values → compare with the baseline → write the outcome, and the event and its
 * delivery when something changed, in one transaction (the outbox). A run that fails sends
 * nothing, keeps the baseline and gives its credit back.
 */
import { compileSchema, forOwner, scrape, type Engine } from '../engine/index.js';
import { marketplaceProduct } from '../engine/marketplace/index.js';
import { advertiserFromUrl, metaAds, type MetaAdsConfig } from '../engine/meta-ads/index.js';
import { isTrawlError, TrawlError } from '../errors.js';
import type { Redactor } from '../redact.js';
import { newId, snapshots, type MonitorRun, type Store } from '../store/index.js';
import { normalise, watchesAdvertiser, type Value } from './fields.js';
import { diffValues, shouldNotify, type Changes, type Condition } from './diff.js';

/** Time one run may take (fetch, render, processing). */
export const RUN_TIMEOUT_MS = 30_000;
/** A running run whose lease passed is presumed orphaned (its process died) and is run again. */
export const RUN_LEASE_MS = RUN_TIMEOUT_MS * 4;
/** Failed runs in a row after which a monitor's health is `failing`. */
export const FAILING_AFTER = 3;

export interface RunnerDeps {
  store: Store;
  engine: Engine;
  log?: { warn(obj: object, msg: string): void };
  /** Where the Ad Library is, for monitors on an advertiser (and the Graph API token, if any). */
  meta?: MetaAdsConfig;
  /** Told about a delivery written by a run (the scheduler hands it on at once). */
  onDelivery?(deliveryId: string, attempts: number): void;
  /** Removes configured secrets from the stored error (a failed fetch may quote a URL with a token). */
  redact: Redactor;
}

type Claimed = { run: MonitorRun; url: string; watch: string[]; schema: string | null; marketplace: string | null };

/**
 * Takes the run for this process, with its credit: a queued run is taken and charged in one
 * transaction (skipped when the account has none); a run whose runner died keeps the credit it
 * already holds. Undefined when the run is not ours to run.
 */
async function claim(deps: RunnerDeps, runId: string, now: Date): Promise<Claimed | 'skipped' | undefined> {
  const nowIso = now.toISOString();
  const lease = new Date(now.getTime() + RUN_LEASE_MS).toISOString();
  const run = await deps.store.db.transaction().execute(async (trx) => {
    const fresh = await trx
      .updateTable('monitor_runs')
      .set({ status: 'running', started_at: nowIso, lease_until: lease, credits: 1 })
      .where('id', '=', runId)
      .where('status', '=', 'queued')
      .where('credits', '=', 0)
      .returningAll()
      .executeTakeFirst();
    if (fresh) {
      const r = await trx
        .updateTable('accounts')
        .set((eb) => ({ credits: eb('credits', '-', 1) }))
        .where('id', '=', fresh.account_id)
        .where('credits', '>=', 1)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) return fresh;
      await trx.updateTable('monitor_runs').set({ status: 'skipped', credits: 0, finished_at: nowIso, lease_until: null, error: 'skipped: the account has no credits left' }).where('id', '=', runId).execute();
      await trx.updateTable('monitors').set({ last_run_at: nowIso }).where('id', '=', fresh.monitor_id).execute();
      return 'skipped' as const;
    }
    // Taken over from a runner that died (requeued by the sweep, or past its lease): already charged.
    return trx
      .updateTable('monitor_runs')
      .set({ status: 'running', started_at: nowIso, lease_until: lease })
      .where('id', '=', runId)
      .where((eb) => eb.or([eb.and([eb('status', '=', 'queued'), eb('credits', '=', 1)]), eb.and([eb('status', '=', 'running'), eb('lease_until', '<', nowIso)])]))
      .returningAll()
      .executeTakeFirst();
  });
  if (!run || run === 'skipped') return run;
  const m = await deps.store.db.selectFrom('monitors').select(['url', 'watch', 'schema', 'marketplace']).where('id', '=', run.monitor_id).executeTakeFirst();
  if (!m) return undefined; // deleted meanwhile: the run went with it, its credit given back
  return { run, url: m.url, watch: JSON.parse(m.watch), schema: m.schema, marketplace: m.marketplace };
}

/** The watched values of one page. */
async function observe(engine: Engine, c: Claimed, signal?: AbortSignal, meta?: MetaAdsConfig): Promise<{ values: Record<string, Value>; statusCode: number }> {
  const values: Record<string, Value> = {};
  // An advertiser's ads: how many, and which (a launch or a stop changes the list).
  const advertiser = meta && !c.marketplace && !c.schema && watchesAdvertiser(c.watch) ? advertiserFromUrl(c.url, meta.libraryBaseUrl) : undefined;
  if (advertiser) {
    const r = await metaAds(engine.http, { ...advertiser, limit: 500, timeoutMs: RUN_TIMEOUT_MS, signal }, meta!);
    const ids = r.ads.map((a) => a.id).sort();
    for (const f of c.watch) values[f] = f === 'total' ? (r.total ?? ids.length) : ids;
    return { values, statusCode: 200 };
  }
  // A marketplace page without a schema of its own: the marketplace's product reader (its markdown
  // from the same parse when watched; `title` is the product's).
  if (c.marketplace && !c.schema) {
    const r = await marketplaceProduct(engine, { marketplace: c.marketplace, url: c.url, timeoutMs: RUN_TIMEOUT_MS, signal, markdown: c.watch.includes('markdown') });
    for (const f of c.watch) values[f] = normalise(f === 'status_code' ? r.statusCode : f === 'markdown' ? r.markdown : r.product[f]);
    return { values, statusCode: r.statusCode };
  }
  const schema = c.schema ? compileSchema(JSON.parse(c.schema)) : undefined;
  const wantsMarkdown = c.watch.includes('markdown');
  const r = await scrape(engine, {
    url: c.url,
    formats: [...(wantsMarkdown || !schema ? (['markdown'] as const) : []), ...(schema ? (['json'] as const) : [])],
    schema,
    timeoutMs: RUN_TIMEOUT_MS,
    signal,
  });
  for (const f of c.watch) {
    const raw = f === 'title' && !(schema && Object.hasOwn(r.json ?? {}, f)) ? r.metadata.title
      : f === 'markdown' ? r.markdown
      : f === 'status_code' ? r.metadata.status_code
      : r.json?.[f];
    values[f] = normalise(raw);
  }
  return { values, statusCode: r.metadata.status_code };
}

class Superseded extends Error {}

/**
 * Run `runId` if it is this process's to run (queued, or orphaned past its lease). Returns the
 * run as it ended, or undefined when there was nothing to do.
 */
export async function executeRun(deps: RunnerDeps, runId: string, signal?: AbortSignal): Promise<MonitorRun | undefined> {
  const db = deps.store.db;
  const claimed = await claim(deps, runId, new Date());
  if (claimed === 'skipped') return db.selectFrom('monitor_runs').selectAll().where('id', '=', runId).executeTakeFirst();
  if (!claimed) return undefined;
  const { run } = claimed;
  const started = Date.now();
  let outcome: { values: Record<string, Value>; statusCode: number } | undefined;
  let error: string | undefined;
  try {
    outcome = await observe(forOwner(deps.engine, run.account_id), claimed, signal, deps.meta);
  } catch (e) {
    error = isTrawlError(e) ? deps.redact(`${e.code}: ${e.detail}`) : 'internal_error: the run failed unexpectedly';
    if (!isTrawlError(e)) deps.log?.warn({ err: e, run: runId }, 'monitor run failed unexpectedly');
  }
  const finishedIso = new Date().toISOString();
  const usageRow = (status: number, credits: number) => ({
    account_id: run.account_id,
    key_id: null,
    endpoint: 'monitor run',
    status,
    credits,
    duration_ms: Date.now() - started,
    request_id: run.id,
    created_at: finishedIso,
  });
  let delivery: { id: string; attempts: number } | undefined;
  let ended: MonitorRun | undefined;
  try {
    await db.transaction().execute(async (trx) => {
      const m = await trx.selectFrom('monitors').select(['id', 'url', 'watch', 'webhook', 'conditions', 'last_values', 'consecutive_failures']).where('id', '=', run.monitor_id).executeTakeFirst();
      if (!m) throw new Superseded(); // deleted meanwhile, with its runs; the delete gave the credit back
      // Still ours? (An expired lease may have handed the run to another runner.)
      const finish = async (patch: Partial<MonitorRun>) => {
        const r = await trx.updateTable('monitor_runs').set(patch).where('id', '=', runId).where('status', '=', 'running').where('started_at', '=', run.started_at).executeTakeFirst();
        if (Number(r.numUpdatedRows) !== 1) throw new Superseded();
        ended = { ...run, ...patch };
      };
      if (!outcome) {
        const failures = m.consecutive_failures + 1;
        await finish({ status: 'failed', finished_at: finishedIso, lease_until: null, credits: 0, error: error ?? 'failed' });
        await trx.updateTable('accounts').set((eb) => ({ credits: eb('credits', '+', run.credits) })).where('id', '=', run.account_id).execute();
        await trx.updateTable('monitors').set({ last_run_at: finishedIso, consecutive_failures: failures, health: failures >= FAILING_AFTER ? 'failing' : 'ok' }).where('id', '=', m.id).execute();
        await trx.insertInto('usage').values(usageRow(502, 0)).execute();
        return;
      }
      const watch: string[] = JSON.parse(m.watch);
      const previous = (m.last_values ? await snapshots.expand(trx, JSON.parse(m.last_values), outcome.values) : null) as Record<string, Value> | null;
      const changes: Changes = diffValues(previous, outcome.values, watch);
      const conditions: Condition[] | null = m.conditions ? JSON.parse(m.conditions) : null;
      const eventId = shouldNotify(changes, outcome.values, conditions) ? newId('evt') : null;
      // Retention: large values (markdown …) stored once by hash; the run and the baseline keep references.
      const stored = await snapshots.storeRun(trx, runId, outcome.values, changes);
      await finish({ status: 'succeeded', finished_at: finishedIso, lease_until: null, status_code: outcome.statusCode, values: stored.values, changes: stored.changes, event_id: eventId });
      if (eventId) {
        const body = JSON.stringify({ id: eventId, event: 'change.detected', monitor_id: m.id, url: m.url, changes, at: finishedIso });
        await trx.insertInto('webhook_events').values({ id: eventId, monitor_id: m.id, account_id: run.account_id, run_id: runId, body, created_at: finishedIso }).execute();
        delivery = { id: newId('dlv'), attempts: 0 };
        await trx
          .insertInto('webhook_deliveries')
          .values({ id: delivery.id, event_id: eventId, monitor_id: m.id, account_id: run.account_id, url: m.webhook, state: 'pending', attempts: 0, next_attempt_at: finishedIso, created_at: finishedIso, updated_at: finishedIso })
          .execute();
      }
      // The run's values are the new baseline (fields no longer watched drop out).
      await trx
        .updateTable('monitors')
        .set({ last_values: stored.values, last_success_at: finishedIso, last_run_at: finishedIso, consecutive_failures: 0, health: 'ok' })
        .where('id', '=', m.id)
        .execute();
      await trx.insertInto('usage').values(usageRow(200, run.credits)).execute();
    });
  } catch (e) {
    if (e instanceof Superseded) return undefined;
    throw e;
  }
  if (delivery) deps.onDelivery?.(delivery.id, delivery.attempts);
  return ended;
}

/** "Run now": a manual run written first (so a crash cannot lose it), then run here. */
export async function runNow(deps: RunnerDeps, monitor: { id: string; account_id: string }): Promise<MonitorRun> {
  const id = newId('run');
  const now = new Date();
  await deps.store.db
    .insertInto('monitor_runs')
    .values({ id, monitor_id: monitor.id, account_id: monitor.account_id, trigger: 'manual', status: 'queued', due_at: now.toISOString(), lease_until: new Date(now.getTime() + RUN_LEASE_MS).toISOString(), credits: 0 })
    .execute();
  const run = (await executeRun(deps, id)) ?? (await deps.store.db.selectFrom('monitor_runs').selectAll().where('id', '=', id).executeTakeFirst());
  if (!run) throw new TrawlError('not_found', `monitor ${monitor.id} was deleted while it ran`);
  return run;
}
