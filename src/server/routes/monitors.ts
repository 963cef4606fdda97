/**
 * /v1/monitors (contract section 4) and the endpoints beyond it: history, runs, redeliver.
 * None of these costs a credit; each monitor run does (the runner charges it).
 */
import { sessionUse } from '../../app/browser-sessions.js';
import type { FastifyInstance } from 'fastify';
import { invalidRequest, notFound } from '../../errors.js';
import { redeliver } from '../../monitors/deliver.js';
import { runNow } from '../../monitors/runner.js';
import {
  collapsedRuns,
  CreateMonitorBody,
  createMonitor,
  expandRun,
  deleteMonitor,
  findMonitor,
  listDeliveries,
  monitorDetail,
  monitorNotify,
  presentMonitor,
  presentRun,
  UpdateMonitorBody,
  updateMonitor,
} from '../../app/monitors.js';
import { monitors as repo, webhooks } from '../../store/index.js';
import { deliveryConfig, metaConfig } from '../../config.js';
import type { ServerContext } from '../context.js';
import { docRoute, openapiRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';
import { decodeCursor, encodeCursor, limitOf, newestFirst } from '../paging.js';

type IdParams = { Params: { id: string } };

export function monitorRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const mctx = { store: ctx.store, engine: ctx.engine, config: ctx.config, wake: () => ctx.scheduler?.wake() };
  const delivery = { store: ctx.store, engine: ctx.engine, ...deliveryConfig(ctx.config), redact: ctx.redact };

  app.post(
    '/monitors',
    openapiRoute(
      CreateMonitorBody,
      'Create a monitor: scrape on an interval, send change.detected when a watched field changes',
      docs.createMonitor,
    ),
    async (request, reply) => {
      const m = await createMonitor(mctx, request.auth!.accountId, request.body);
      reply.code(201);
      return { status: 'ok', monitor: { ...presentMonitor(m), notify: await monitorNotify(ctx, m.id) } };
    },
  );

  app.get(
    '/monitors',
    docRoute('List monitors, newest first (limit ≤ 100, cursor)', docs.listMonitors),
    async (request) => {
      const { page, next_cursor } = await newestFirst(request, (limit, after) =>
        repo.listMonitors(ctx.store.db, request.auth!.accountId, limit, after),
      );
      return { status: 'ok', monitors: page.map(presentMonitor), next_cursor };
    },
  );

  app.get<IdParams>(
    '/monitors/:id',
    docRoute('A monitor with its last values and last runs', docs.getMonitor),
    async (request) => {
      const m = await findMonitor(ctx, request.auth!.accountId, request.params.id);
      return { status: 'ok', monitor: await monitorDetail(ctx, m) };
    },
  );

  app.patch<IdParams>(
    '/monitors/:id',
    openapiRoute(
      UpdateMonitorBody,
      'Change interval, watch, webhook, state (active|paused) or conditions',
      docs.updateMonitor,
    ),
    async (request) => {
      const m = await updateMonitor(mctx, request.auth!.accountId, request.params.id, request.body);
      return { status: 'ok', monitor: { ...presentMonitor(m), notify: await monitorNotify(ctx, m.id) } };
    },
  );

  app.delete<IdParams>(
    '/monitors/:id',
    docRoute('Delete a monitor, its runs and any deliveries not yet sent', docs.deleteMonitor),
    async (request) => {
      await deleteMonitor(ctx, request.auth!.accountId, request.params.id);
      return { status: 'ok', monitor_id: request.params.id, deleted: true };
    },
  );

  app.post<IdParams>(
    '/monitors/:id/run',
    docRoute('Run a monitor now and answer with the run (costs the run its credit)', docs.runMonitor),
    async (request) => {
      const m = await findMonitor(ctx, request.auth!.accountId, request.params.id);
      const run = await runNow(
        {
          store: ctx.store,
          engine: ctx.engine,
          log: request.log,
          meta: metaConfig(ctx.config),
          redact: ctx.redact,
          onDelivery: ctx.scheduler?.handDelivery.bind(ctx.scheduler),
          sessions: sessionUse(ctx),
        },
        m,
      );
      return { status: 'ok', run: presentRun(await expandRun(ctx, run)) };
    },
  );

  app.get<IdParams>(
    '/monitors/:id/runs',
    docRoute(
      'Runs of a monitor, newest first; unchanged runs older than a day are counted per day in unchanged_runs_collapsed',
      docs.listMonitorRuns,
    ),
    async (request) => {
      const m = await findMonitor(ctx, request.auth!.accountId, request.params.id);
      const [runs, collapsed] = await Promise.all([
        repo.listRuns(ctx.store.db, m.id, limitOf(request, 50, 500)),
        collapsedRuns(ctx, m.id),
      ]);
      return { status: 'ok', runs: runs.map(presentRun), unchanged_runs_collapsed: collapsed };
    },
  );

  app.get<IdParams>(
    '/monitors/:id/history',
    docRoute('Values of one watched field over successful runs: ?field=price&limit=&cursor=', docs.getMonitorHistory),
    async (request) => {
      const m = await findMonitor(ctx, request.auth!.accountId, request.params.id);
      const q = request.query as Record<string, unknown>;
      const watch: string[] = JSON.parse(m.watch);
      if (typeof q.field !== 'string' || !watch.includes(q.field))
        throw invalidRequest(`field: must be one of the watched fields (${watch.join(', ')})`);
      const limit = limitOf(request, 100, 1000);
      const before = decodeCursor(q.cursor, 1)?.[0];
      const rows = await repo.fieldHistory(ctx.store.db, m.id, limit + 1, before);
      const page = rows.slice(0, limit);
      const field = q.field;
      const points = page
        .map((r) => ({ at: r.at, value: (JSON.parse(r.values) as Record<string, unknown>)[field] ?? null }))
        .reverse();
      return {
        status: 'ok',
        field,
        points,
        next_cursor: rows.length > limit ? encodeCursor([page[page.length - 1].at]) : null,
      };
    },
  );

  app.get<IdParams>(
    '/monitors/:id/deliveries',
    docRoute(
      'Webhook deliveries of a monitor with every attempt (status code, error, duration)',
      docs.listMonitorDeliveries,
    ),
    async (request) => {
      const m = await findMonitor(ctx, request.auth!.accountId, request.params.id);
      return { status: 'ok', deliveries: await listDeliveries(ctx, m.id, limitOf(request, 50, 500)) };
    },
  );

  app.post<{ Params: { id: string; delivery_id: string } }>(
    '/monitors/:id/deliveries/:delivery_id/redeliver',
    docRoute('Send an event again now: same body and id, logged as a new attempt', docs.redeliver),
    async (request) => {
      const m = await findMonitor(ctx, request.auth!.accountId, request.params.id);
      const d = await webhooks.getDelivery(ctx.store.db, request.params.delivery_id);
      // A channel's message is not the webhook's to resend (it is sent to the channel, on its schedule).
      if (!d || d.monitor_id !== m.id || d.channel_id)
        throw notFound(`no delivery ${request.params.delivery_id.slice(0, 40)} for monitor ${m.id}`);
      await redeliver(delivery, d);
      const [shown] = await listDeliveries(ctx, m.id, 1, d.id);
      return { status: 'ok', delivery: shown };
    },
  );
}
