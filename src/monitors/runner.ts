/**
 * One monitor run: claim it (and its credit) → scrape with the same engine as /v1/scrape →
 * the watched values → compare with the baseline → write the outcome, and the event and its
 * delivery when something changed, in one transaction (the outbox). A run that fails sends
 * nothing, keeps the baseline and gives its credit back.
 */
import type { SessionJar } from '../engine/fetch/session-jar.js';
import {
  compileSchema,
  forOwner,
  scrape,
  type Action,
  type Cookie,
  type Engine,
  type Location,
  type PageSetup,
} from '../engine/index.js';
import { marketplaceProduct } from '../engine/marketplace/index.js';
import { advertiserFromUrl, metaAds, type MetaAdsConfig } from '../engine/meta-ads/index.js';
import { isTrawlError, TrawlError } from '../errors.js';
import type { Redactor } from '../redact.js';
import { newId, runs as runsRepo, snapshots, usage as usageRepo, type MonitorRun, type Store } from '../store/index.js';
import type { RunTarget } from '../store/repos/runs.js';
import { HANDED_MS } from './deliver.js';
import { normalise, watchesAdvertiser, type Value } from './fields.js';
import { diffValues, nextBaseline, shouldNotify, type Changes, type Condition } from './diff.js';
import { changeEventBody, sends, writeChangeEvent, writeHealthEvent } from './events.js';
import { targetStatusOf } from '../engine/fetch/page.js';
import { linkedSignal } from '../engine/linked-signal.js';
import { creditsCharged, creditsRefunded, monitorRunLag, monitorRuns } from '../metrics.js';

/** Time one run may take (fetch, render, processing). */
export const RUN_TIMEOUT_MS = 30_000;
/**
 * A running run whose lease passed is presumed orphaned (its process died) and is run again. The
 * runner renews it every third of this while it works, so a dead runner's run comes back within
 * this, however long runs may take.
 */
export const RUN_LEASE_MS = 30_000;
/** Failed runs in a row after which a monitor's health is `failing`. */
export const FAILING_AFTER = 3;

export interface RunnerDeps {
  store: Store;
  engine: Engine;
  log?: { warn(obj: object, msg: string): void };
  /** Where the Ad Library is, for monitors on an advertiser (and the Graph API token, if any). */
  meta?: MetaAdsConfig;
  /**
   * Hands a delivery written by a run to the queue at once. Without it (an API process in
   * scale-out) the delivery waits for the relay's next pass.
   */
  onDelivery?(deliveryId: string, attempts: number): void;
  /** Removes configured secrets from the stored error (a failed fetch may quote a URL with a token). */
  redact: Redactor;
  /** Reads a page with a saved browser session (app/browser-sessions.ts, handed down by the entry). */
  sessions?: SessionUse;
}

/** A page read with an account's saved session: expiry marked, one re-login, what the site set kept. */
export type SessionUse = <T>(
  accountId: string,
  name: string,
  url: string,
  run: (jar: SessionJar) => Promise<T>,
  signal?: AbortSignal,
) => Promise<T>;

type Claimed = {
  run: MonitorRun;
  url: string;
  watch: string[];
  schema: string | null;
  marketplace: string | null;
  options: MonitorScrapeOptions;
  seen: RunTarget;
};

/** Why a run was not run here: done or gone (nothing to do), or in another runner's hands until a time. */
export type NotRun = { heldUntil?: string };

/**
 * Takes the run for this process, with its credit (store/repos/runs.ts): a queued run is taken and
 * charged at once (skipped when the account has none, or when a scheduled run's monitor was paused
 * meanwhile); a run whose runner died (lease past, on the database's clock) keeps the credit it
 * already holds. A NotRun when the run is not ours to run.
 */
async function claim(deps: RunnerDeps, runId: string, now: Date): Promise<Claimed | 'skipped' | NotRun> {
  const c = await runsRepo.claimRun(deps.store.db, runId, now, RUN_LEASE_MS);
  if (c.kind === 'skipped') return 'skipped';
  if (c.kind === 'held') return { heldUntil: c.until };
  if (c.kind === 'none') return {};
  return {
    run: c.run,
    url: c.monitor.url,
    watch: JSON.parse(c.monitor.watch),
    schema: c.monitor.schema,
    marketplace: c.monitor.marketplace,
    options: c.monitor.scrape_options ? JSON.parse(c.monitor.scrape_options) : {},
    seen: c.monitor,
  };
}

/**
 * The watched values of one page. A page answering ≥ 400 is an observation when `status_code`
 * is watched: that value alone (the other fields keep their baseline and stay out of the diff).
 */
async function observe(
  engine: Engine,
  c: Claimed,
  signal?: AbortSignal,
  meta?: MetaAdsConfig,
  sessions?: SessionUse,
): Promise<{ values: Record<string, Value>; statusCode: number }> {
  try {
    return await observePage(engine, c, signal, meta, sessions);
  } catch (e) {
    const status = targetStatusOf(e);
    if (status === undefined || !c.watch.includes('status_code')) throw e;
    return { values: { status_code: status }, statusCode: status };
  }
}

async function observePage(
  engine: Engine,
  c: Claimed,
  signal?: AbortSignal,
  meta?: MetaAdsConfig,
  sessions?: SessionUse,
): Promise<{ values: Record<string, Value>; statusCode: number }> {
  const values: Record<string, Value> = {};
  // An advertiser's ads: how many, and which (a launch or a stop changes the list).
  const advertiser =
    meta && !c.marketplace && !c.schema && watchesAdvertiser(c.watch)
      ? advertiserFromUrl(c.url, meta.libraryBaseUrl)
      : undefined;
  if (advertiser) {
    const r = await metaAds(engine.http, { ...advertiser, limit: 500, timeoutMs: RUN_TIMEOUT_MS, signal }, meta!);
    const ids = r.ads.map((a) => a.id).sort();
    for (const f of c.watch) values[f] = f === 'total' ? (r.total ?? ids.length) : ids;
    return { values, statusCode: 200 };
  }
  // A marketplace page without a schema of its own: the marketplace's product reader (its markdown
  // from the same parse when watched; `title` is the product's).
  if (c.marketplace && !c.schema) {
    const r = await marketplaceProduct(engine, {
      marketplace: c.marketplace,
      url: c.url,
      timeoutMs: RUN_TIMEOUT_MS,
      signal,
      markdown: c.watch.includes('markdown'),
      setup: setupOf(c.options),
      actions: c.options.actions,
    });
    for (const f of c.watch)
      values[f] = normalise(f === 'status_code' ? r.statusCode : f === 'markdown' ? r.markdown : r.product[f]);
    return { values, statusCode: r.statusCode };
  }
  const schema = c.schema ? compileSchema(JSON.parse(c.schema)) : undefined;
  const wantsMarkdown = c.watch.includes('markdown');
  const { session: sessionName, ...options } = c.options;
  const read = (session?: SessionJar) =>
    scrape(engine, {
      url: c.url,
      formats: [...(wantsMarkdown || !schema ? (['markdown'] as const) : []), ...(schema ? (['json'] as const) : [])],
      schema,
      timeoutMs: RUN_TIMEOUT_MS,
      signal,
      // Never `cache`: a monitor observes the page as it is now.
      ...options,
      session,
    });
  if (sessionName && !sessions)
    throw new TrawlError('internal_error', 'this process cannot read pages with saved sessions');
  const r = sessionName ? await sessions!(c.run.account_id, sessionName, c.url, read, signal) : await read();
  for (const f of c.watch) {
    const raw =
      f === 'title' && !(schema && Object.hasOwn(r.json ?? {}, f))
        ? r.metadata.title
        : f === 'markdown'
          ? r.markdown
          : f === 'status_code'
            ? r.metadata.status_code
            : r.json?.[f];
    values[f] = normalise(raw);
  }
  return { values, statusCode: r.metadata.status_code };
}

/** How a monitor's page is fetched (stored on the monitor as JSON; contract section 9). */
export interface MonitorScrapeOptions {
  actions?: Action[];
  headers?: Record<string, string>;
  cookies?: Cookie[];
  mobile?: boolean;
  location?: Location;
  /** A saved browser session's name (issue 44). */
  session?: string;
}

const setupOf = (o: MonitorScrapeOptions): PageSetup | undefined =>
  o.headers || o.cookies || o.mobile || o.location
    ? { headers: o.headers, cookies: o.cookies, mobile: o.mobile, location: o.location }
    : undefined;

class Superseded extends Error {}

/**
 * What a succeeded observation means against a monitor's state: its changes (against the baseline's
 * values, `previous`, with snapshot references expanded) and whether it sends an event.
 */
function decide(
  m: { watch: string; conditions: string | null; events: string | null },
  previous: Record<string, Value> | null,
  values: Record<string, Value>,
) {
  const watch: string[] = JSON.parse(m.watch);
  const changes: Changes = diffValues(previous, values, watch);
  const conditions: Condition[] | null = m.conditions ? JSON.parse(m.conditions) : null;
  const eventId = shouldNotify(changes, values, conditions) && sends(m.events, 'change.detected') ? newId('evt') : null;
  return { watch, changes, eventId };
}

/**
 * The next baseline as stored: the run's values as written (large ones as snapshot references),
 * and for fields this run did not observe (a page answering >= 400), the previous baseline's.
 */
const baselineOf = (storedValues: string, lastValues: string | null, watch: string[]) =>
  JSON.stringify(nextBaseline(lastValues ? JSON.parse(lastValues) : null, JSON.parse(storedValues), watch));

/**
 * Keeps the run's lease ahead while it works. When the renewal finds the run no longer ours (a
 * runner took it over after this process stalled past the lease, or the monitor was deleted),
 * the work is aborted. A renewal that fails for a database outage is tried again next time.
 */
function renewLease(deps: RunnerDeps, run: MonitorRun, lost: AbortController): NodeJS.Timeout {
  const timer = setInterval(() => {
    runsRepo
      .renewLease(deps.store.db, run, new Date(deps.store.now().getTime() + RUN_LEASE_MS).toISOString())
      .then((ours) => {
        if (!ours) lost.abort(new Error("the run is no longer this runner's"));
      })
      .catch(() => undefined);
  }, RUN_LEASE_MS / 3);
  timer.unref();
  return timer;
}

/**
 * Run `runId` if it is this process's to run (queued, or orphaned past its lease). Returns the
 * run as it ended, or undefined when there was nothing to do.
 */
export async function executeRun(deps: RunnerDeps, runId: string, signal?: AbortSignal): Promise<MonitorRun | NotRun> {
  const ended = await runOnce(deps, runId, signal);
  // Counted where it ended here: a run this process did not end (held elsewhere, superseded) is not.
  if ('status' in ended && ['succeeded', 'failed', 'skipped'].includes(ended.status)) {
    monitorRuns.inc({ status: ended.status });
    if (ended.status === 'succeeded' && ended.credits > 0) creditsCharged.inc({ by: 'monitor_run' }, ended.credits);
  }
  return ended;
}

async function runOnce(deps: RunnerDeps, runId: string, signal?: AbortSignal): Promise<MonitorRun | NotRun> {
  const db = deps.store.db;
  const claimed = await claim(deps, runId, deps.store.now());
  if (claimed === 'skipped') return (await runsRepo.getRun(db, runId)) ?? {};
  if (!('run' in claimed)) return claimed;
  const { run } = claimed;
  if (run.started_at) monitorRunLag.observe(Math.max(0, Date.parse(run.started_at) - Date.parse(run.due_at)) / 1000);
  const started = Date.now();
  let outcome: { values: Record<string, Value>; statusCode: number } | undefined;
  let error: string | undefined;
  const lost = new AbortController();
  const linked = linkedSignal(signal, lost.signal);
  const renewal = renewLease(deps, run, lost);
  let statusCode: number | undefined;
  try {
    outcome = await observe(forOwner(deps.engine, run.account_id), claimed, linked.signal, deps.meta, deps.sessions);
  } catch (e) {
    // A reason (session_expired) goes with the code, so the failure and monitor.failing say it.
    error = isTrawlError(e)
      ? deps.redact(`${e.code}${e.fields.reason ? ` (${String(e.fields.reason)})` : ''}: ${e.detail}`)
      : 'internal_error: the run failed unexpectedly';
    statusCode = targetStatusOf(e);
    if (!isTrawlError(e) && !lost.signal.aborted)
      deps.log?.warn({ err: e, run: runId }, 'monitor run failed unexpectedly');
  } finally {
    clearInterval(renewal);
    linked.release();
  }
  if (lost.signal.aborted) return {}; // another runner has it now: whatever this one saw is not written
  const finishedIso = deps.store.now().toISOString();
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
  const deliveries: (string | undefined)[] = [];
  // Handed to the queue by this process right after commit; the relay takes them only if that is lost.
  const handedUntil = deps.onDelivery ? new Date(Date.parse(finishedIso) + HANDED_MS).toISOString() : null;
  const event = { monitorId: run.monitor_id, accountId: run.account_id, runId, at: finishedIso, handedUntil };
  let ended: MonitorRun | undefined;
  // PostgreSQL, the common case (a success, no health event, the monitor as the claim saw it):
  // one statement. Anything else — or a monitor changed meanwhile — decides again in a transaction.
  const seen = claimed.seen;
  const valuesJson = outcome ? JSON.stringify(outcome.values) : '';
  // (Only without snapshots: large values are written in the transaction below, with their references.)
  const small = valuesJson.length <= snapshots.SNAPSHOT_MIN_BYTES && !seen.last_values?.includes('"$snapshot"');
  if (
    deps.store.dialect === 'postgres' &&
    outcome &&
    small &&
    seen.consecutive_failures < FAILING_AFTER &&
    !(seen.baseline_at && run.started_at! < seen.baseline_at)
  ) {
    const d = decide(seen, seen.last_values ? JSON.parse(seen.last_values) : null, outcome.values);
    const changesJson = Object.keys(d.changes).length ? JSON.stringify(d.changes) : null;
    const deliveryId = newId('dlv');
    const finish: runsRepo.SucceededRun = {
      run,
      seen,
      finishedAt: finishedIso,
      statusCode: outcome.statusCode,
      valuesJson,
      changesJson,
      baselineJson: baselineOf(valuesJson, seen.last_values, d.watch),
      event: d.eventId
        ? {
            id: d.eventId,
            deliveryId,
            handedUntil,
            body: changeEventBody({
              id: d.eventId,
              monitorId: run.monitor_id,
              url: seen.url,
              sequence: seen.event_sequence + 1,
              changes: d.changes,
              at: finishedIso,
            }),
          }
        : undefined,
      usage: { status: 200, credits: run.credits, durationMs: Date.now() - started },
    };
    const result = await runsRepo.finishSucceededInOneStatement(db, finish);
    if (result === 'superseded') return {};
    if (result === 'done') {
      if (d.eventId) deps.onDelivery?.(deliveryId, 0);
      for (const id of finish.channelDeliveryIds ?? []) deps.onDelivery?.(id, 0);
      return {
        ...run,
        status: 'succeeded',
        finished_at: finishedIso,
        lease_until: null,
        status_code: outcome.statusCode,
        values: valuesJson,
        changes: changesJson,
        event_id: d.eventId,
      };
    }
  }
  try {
    await db.transaction().execute(async (trx) => {
      // The monitor row is locked until commit: whatever else finishes for this monitor (a run
      // taken over, a manual run) diffs against the baseline this run leaves, never the same old one.
      const m = await runsRepo.monitorForFinish(trx, run.monitor_id);
      if (!m) throw new Superseded(); // deleted meanwhile, with its runs; the delete gave the credit back
      // Still ours? (An expired lease may have handed the run to another runner.)
      const finish = async (patch: Partial<MonitorRun>) => {
        if (!(await runsRepo.endRun(trx, run, patch))) throw new Superseded();
        ended = { ...run, ...patch };
      };
      if (!outcome) {
        const failures = m.consecutive_failures + 1;
        await finish({
          status: 'failed',
          finished_at: finishedIso,
          lease_until: null,
          credits: 0,
          error: error ?? 'failed',
          status_code: statusCode ?? null,
        });
        await runsRepo.recordFailure(trx, run, failures, failures >= FAILING_AFTER ? 'failing' : 'ok', finishedIso);
        await usageRepo.recordUsage(trx, usageRow(502, 0));
        if (failures === FAILING_AFTER)
          deliveries.push(
            ...(await writeHealthEvent(trx, 'monitor.failing', {
              ...event,
              events: m.events,
              failures,
              error: error ?? 'failed',
            })),
          );
        return;
      }
      // An observation older than the baseline's never replaces it (nor is diffed against it).
      if (m.baseline_at && run.started_at! < m.baseline_at) {
        await finish({
          status: 'succeeded',
          finished_at: finishedIso,
          lease_until: null,
          status_code: outcome.statusCode,
          values: JSON.stringify(outcome.values),
          error: 'superseded: a newer observation is the baseline',
        });
        await usageRepo.recordUsage(trx, usageRow(200, run.credits));
        return;
      }
      const previous = (
        m.last_values ? await snapshots.expand(trx, JSON.parse(m.last_values), outcome.values) : null
      ) as Record<string, Value> | null;
      const { watch, changes, eventId } = decide(m, previous, outcome.values);
      // Retention: large values (markdown …) stored once by hash; the run and the baseline keep references.
      const stored = await snapshots.storeRun(trx, runId, outcome.values, Object.keys(changes).length ? changes : null);
      const baselineJson = baselineOf(stored.values, m.last_values, watch);
      await finish({
        status: 'succeeded',
        finished_at: finishedIso,
        lease_until: null,
        status_code: outcome.statusCode,
        values: stored.values,
        changes: stored.changes,
        event_id: eventId,
      });
      if (m.consecutive_failures >= FAILING_AFTER)
        deliveries.push(
          ...(await writeHealthEvent(trx, 'monitor.recovered', {
            ...event,
            events: m.events,
            failures: m.consecutive_failures,
          })),
        );
      if (eventId) deliveries.push(...(await writeChangeEvent(trx, { ...event, eventId, changes })));
      // The run's values are the new baseline (fields no longer watched drop out).
      await runsRepo.moveBaseline(trx, run, baselineJson, finishedIso);
      await usageRepo.recordUsage(trx, usageRow(200, run.credits));
    });
  } catch (e) {
    if (e instanceof Superseded) return {};
    throw e;
  }
  // The failed run's claim had reserved its credit; the transaction just gave it back.
  if (ended?.status === 'failed' && run.credits > 0) creditsRefunded.inc({ by: 'monitor_run' }, run.credits);
  for (const id of deliveries) if (id) deps.onDelivery?.(id, 0);
  return ended ?? {};
}

/**
 * "Run now": a manual run written first (so a crash cannot lose it), then run here. A monitor has
 * one open run at a time: when one is already queued, it is taken and run here now; when one is
 * running elsewhere, its outcome is the answer (it is as fresh as a new one would be).
 */
export async function runNow(deps: RunnerDeps, monitor: { id: string; account_id: string }): Promise<MonitorRun> {
  const db = deps.store.db;
  const now = deps.store.now();
  const openId = await runsRepo.openManualRun(db, monitor, now, RUN_LEASE_MS, newId('run'));
  const gone = () => new TrawlError('not_found', `monitor ${monitor.id} was deleted while it ran`);
  if (!openId) {
    // The open run ended between the two statements: its outcome is the freshest there is.
    const last = await runsRepo.latestRun(db, monitor.id);
    if (!last) throw gone();
    return last;
  }
  const open = { id: openId };
  const ran = await executeRun(deps, open.id);
  if ('id' in ran) return ran;
  // Running elsewhere: wait for it (bounded by its lease), then answer with how it ended.
  const deadline = Date.now() + RUN_TIMEOUT_MS + RUN_LEASE_MS;
  for (;;) {
    const row = await runsRepo.getRun(db, open.id);
    if (!row) throw gone();
    if (row.status !== 'queued' && row.status !== 'running') return row;
    if (Date.now() > deadline) return row;
    if (row.status === 'queued') {
      const again = await executeRun(deps, open.id);
      if ('id' in again) return again;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
