/**
 * One monitor run: claim it (and its credit) → scrape with the same engine as /v1/scrape →
 * the watched values → compare with the baseline → write the outcome, and the event and its
 * delivery when something changed, in one transaction (the outbox). A run that fails sends
 * nothing, keeps the baseline and gives its credit back.
 */
import { compileSchema, scrape, type Engine } from '../engine/index.js';
import { isTrawlError } from '../errors.js';
import { newId, type MonitorRun, type Store } from '../store/index.js';
import { compiledProductSchema, normalise, type Value } from './fields.js';
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
  /** Told about a delivery written by a run (the scheduler hands it on at once). */
  onDelivery?(deliveryId: string, attempts: number): void;
}

type Claimed = { run: MonitorRun; url: string; watch: string[]; schema: string | null; marketplace: string | null; conditions: string | null; lastValues: string | null };

/** Takes the run for this process (and its credit); undefined when it is not ours to run. */
async function claim(deps: RunnerDeps, runId: string, now: Date): Promise<Claimed | 'skipped' | undefined> {
  return deps.store.db.transaction().execute(async (trx) => {
    const run = await trx.selectFrom('monitor_runs').selectAll().where('id', '=', runId).executeTakeFirst();
    if (!run) return undefined;
    const mine = run.status === 'queued' || (run.status === 'running' && (run.lease_until ?? '') < now.toISOString());
    if (!mine) return undefined;
    const m = await trx.selectFrom('monitors').selectAll().where('id', '=', run.monitor_id).executeTakeFirst();
    if (!m) return undefined;
    const nowIso = now.toISOString();
    let credits = run.credits;
    if (!credits) {
      const r = await trx
        .updateTable('accounts')
        .set((eb) => ({ credits: eb('credits', '-', 1) }))
        .where('id', '=', run.account_id)
        .where('credits', '>=', 1)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) {
        await trx.updateTable('monitor_runs').set({ status: 'skipped', started_at: nowIso, finished_at: nowIso, lease_until: null, error: 'skipped: the account has no credits left' }).where('id', '=', runId).execute();
        await trx.updateTable('monitors').set({ last_run_at: nowIso }).where('id', '=', m.id).execute();
        return 'skipped';
      }
      credits = 1;
    }
    const lease = new Date(now.getTime() + RUN_LEASE_MS).toISOString();
    await trx.updateTable('monitor_runs').set({ status: 'running', started_at: nowIso, lease_until: lease, credits }).where('id', '=', runId).execute();
    return { run: { ...run, status: 'running', credits, started_at: nowIso }, url: m.url, watch: JSON.parse(m.watch), schema: m.schema, marketplace: m.marketplace, conditions: m.conditions, lastValues: m.last_values };
  });
}

/** The watched values of one page. */
async function observe(engine: Engine, c: Claimed, signal?: AbortSignal): Promise<{ values: Record<string, Value>; statusCode: number }> {
  const schema = c.schema ? compileSchema(JSON.parse(c.schema)) : c.marketplace && c.watch.some((f) => !['title', 'markdown', 'status_code'].includes(f)) ? compiledProductSchema() : undefined;
  const wantsMarkdown = c.watch.includes('markdown');
  const r = await scrape(engine, {
    url: c.url,
    formats: [...(wantsMarkdown || !schema ? (['markdown'] as const) : []), ...(schema ? (['json'] as const) : [])],
    schema,
    timeoutMs: RUN_TIMEOUT_MS,
    signal,
  });
  const values: Record<string, Value> = {};
  for (const f of c.watch) {
    const raw = f === 'title' && !(schema && Object.hasOwn(r.json ?? {}, f)) ? r.metadata.title
      : f === 'markdown' ? r.markdown
      : f === 'status_code' ? r.metadata.status_code
      : r.json?.[f];
    values[f] = normalise(raw);
  }
  return { values, statusCode: r.metadata.status_code };
}

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
    outcome = await observe(deps.engine, claimed, signal);
  } catch (e) {
    error = isTrawlError(e) ? `${e.code}: ${e.detail}` : 'internal_error: the run failed unexpectedly';
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
  await db.transaction().execute(async (trx) => {
    // Still ours? (A deleted monitor took its runs with it; an expired lease went to another runner.)
    const current = await trx.selectFrom('monitor_runs').select(['status', 'started_at']).where('id', '=', runId).executeTakeFirst();
    if (!current || current.status !== 'running' || current.started_at !== run.started_at) return;
    const m = await trx.selectFrom('monitors').select(['id', 'url', 'watch', 'conditions', 'last_values', 'consecutive_failures']).where('id', '=', run.monitor_id).executeTakeFirst();
    if (!m) return;
    if (!outcome) {
      const failures = m.consecutive_failures + 1;
      await trx.updateTable('accounts').set((eb) => ({ credits: eb('credits', '+', run.credits) })).where('id', '=', run.account_id).execute();
      await trx.updateTable('monitor_runs').set({ status: 'failed', finished_at: finishedIso, lease_until: null, credits: 0, error: error ?? 'failed' }).where('id', '=', runId).execute();
      await trx.updateTable('monitors').set({ last_run_at: finishedIso, consecutive_failures: failures, health: failures >= FAILING_AFTER ? 'failing' : 'ok' }).where('id', '=', m.id).execute();
      await trx.insertInto('usage').values(usageRow(502, 0)).execute();
      return;
    }
    const watch: string[] = JSON.parse(m.watch);
    const previous: Record<string, Value> | null = m.last_values ? JSON.parse(m.last_values) : null;
    const changes: Changes = diffValues(previous, outcome.values, watch);
    const conditions: Condition[] | null = m.conditions ? JSON.parse(m.conditions) : null;
    let eventId: string | null = null;
    if (shouldNotify(changes, outcome.values, conditions)) {
      eventId = newId('evt');
      const body = JSON.stringify({ id: eventId, event: 'change.detected', monitor_id: m.id, url: m.url, changes, at: finishedIso });
      await trx.insertInto('webhook_events').values({ id: eventId, monitor_id: m.id, account_id: run.account_id, run_id: runId, body, created_at: finishedIso }).execute();
      const monitor = await trx.selectFrom('monitors').select('webhook').where('id', '=', m.id).executeTakeFirstOrThrow();
      delivery = { id: newId('dlv'), attempts: 0 };
      await trx
        .insertInto('webhook_deliveries')
        .values({ id: delivery.id, event_id: eventId, monitor_id: m.id, account_id: run.account_id, url: monitor.webhook, state: 'pending', attempts: 0, next_attempt_at: finishedIso, created_at: finishedIso, updated_at: finishedIso })
        .execute();
    }
    // The baseline keeps values of fields no longer watched out; newly watched ones start here.
    const baseline = { ...outcome.values };
    await trx
      .updateTable('monitor_runs')
      .set({ status: 'succeeded', finished_at: finishedIso, lease_until: null, status_code: outcome.statusCode, values: JSON.stringify(outcome.values), changes: Object.keys(changes).length ? JSON.stringify(changes) : null, event_id: eventId })
      .where('id', '=', runId)
      .execute();
    await trx
      .updateTable('monitors')
      .set({ last_values: JSON.stringify(baseline), last_success_at: finishedIso, last_run_at: finishedIso, consecutive_failures: 0, health: 'ok' })
      .where('id', '=', m.id)
      .execute();
    await trx.insertInto('usage').values(usageRow(200, run.credits)).execute();
  });
  if (delivery) deps.onDelivery?.(delivery.id, delivery.attempts);
  return db.selectFrom('monitor_runs').selectAll().where('id', '=', runId).executeTakeFirst();
}
