/**
 * The deployment's backlog as the store sees it, for /metrics: what is due and not yet started
 * (monitors, runs, webhook deliveries) and where jobs stand. Store-wide, so any API process
 * reports the same numbers whichever process does the work. Each query runs on an index
 * (monitors_due, monitor_runs_status, webhook_deliveries_due, jobs_state).
 */
import { sql } from 'kysely';
import type { JobState } from '../tables.js';
import type { Db } from './accounts.js';

export interface Backlog {
  /** Active monitors past their due time and not yet handed to a run. */
  monitorsDue: number;
  /** Seconds since the oldest due time still waiting (a due monitor, or a run queued and not started); 0 when none. */
  monitorLagSeconds: number;
  runsOpen: { queued: number; running: number };
  /** Pending deliveries whose next attempt is due, and attempts being sent. */
  deliveriesDue: number;
  deliveriesSending: number;
  jobs: Record<JobState, number>;
  /** URLs of queued and running jobs not yet done or failed. */
  jobPagesQueued: number;
}

export async function readBacklog(db: Db, now: Date): Promise<Backlog> {
  const nowIso = now.toISOString();
  const monitors = await db
    .selectFrom('monitors')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<string | null>('next_run_at').as('oldest')])
    .where('state', '=', 'active')
    .where('next_run_at', '<=', nowIso)
    .executeTakeFirstOrThrow();
  const runs = await db
    .selectFrom('monitor_runs')
    .select((eb) => ['status', eb.fn.countAll<number>().as('n'), eb.fn.min<string>('due_at').as('oldest')])
    .where('status', 'in', ['queued', 'running'])
    .groupBy('status')
    .execute();
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => ['state', eb.fn.countAll<number>().as('n')])
    .where((eb) =>
      eb.or([eb('state', '=', 'sending'), eb.and([eb('state', '=', 'pending'), eb('next_attempt_at', '<=', nowIso)])]),
    )
    .groupBy('state')
    .execute();
  const jobs = await db
    .selectFrom('jobs')
    .select((eb) => [
      'state',
      eb.fn.countAll<number>().as('n'),
      sql<number>`coalesce(sum(total - done - failed), 0)`.as('left'),
    ])
    .groupBy('state')
    .execute();
  const count = <T extends { n: number | string }>(rows: T[], pick: (r: T) => boolean) =>
    Number(rows.find(pick)?.n ?? 0);
  const queuedOldest = runs.find((r) => r.status === 'queued')?.oldest;
  const oldest = [monitors.oldest, queuedOldest].filter((x): x is string => !!x).map(Date.parse);
  const jobCounts: Record<JobState, number> = { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
  for (const j of jobs) jobCounts[j.state] = Number(j.n);
  return {
    monitorsDue: Number(monitors.n),
    monitorLagSeconds: oldest.length ? Math.max(0, (now.getTime() - Math.min(...oldest)) / 1000) : 0,
    runsOpen: {
      queued: count(runs, (r) => r.status === 'queued'),
      running: count(runs, (r) => r.status === 'running'),
    },
    deliveriesDue: count(deliveries, (d) => d.state === 'pending'),
    deliveriesSending: count(deliveries, (d) => d.state === 'sending'),
    jobs: jobCounts,
    jobPagesQueued: jobs
      .filter((j) => j.state === 'queued' || j.state === 'running')
      .reduce((n, j) => n + Number(j.left), 0),
  };
}
