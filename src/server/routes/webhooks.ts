/**
 * POST /v1/webhooks/replay (contract section 5): every failed delivery of the account since a
 * time (of one monitor, or all — jobs' events included) is scheduled again, due now, with a fresh retry schedule; the
 * scheduler sends them (bounded like any other work, never in this request). No credit.
 */
import type { FastifyInstance } from 'fastify';
import { findMonitor } from '../../app/monitors.js';
import { webhooks } from '../../store/index.js';
import * as jobEvents from '../../store/repos/job-events.js';
import type { ServerContext } from '../context.js';
import { openapiRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';
import { ReplayBody } from '../../contract/schemas.js';
import { parseBody } from '../../contract/validation.js';

export function webhookRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post(
    '/webhooks/replay',
    openapiRoute(
      ReplayBody,
      'Send again every failed webhook delivery since a time: {"since","monitor_id"?} → {"status":"ok","replayed":n}',
      docs.replayWebhooks,
    ),
    async (request) => {
      const body = parseBody(ReplayBody, request.body);
      const accountId = request.auth!.accountId;
      // Another account's monitor (or no such monitor) is 404, as everywhere.
      const monitor = body.monitor_id === undefined ? undefined : await findMonitor(ctx, accountId, body.monitor_id);
      const since = new Date(body.since).toISOString();
      const replayed =
        (await webhooks.replayFailed(ctx.store.db, accountId, since, new Date(), monitor?.id)) +
        // Jobs' events too (job.page, job.completed, the Firecrawl shapes), unless one monitor was named.
        (monitor ? 0 : await jobEvents.replayFailedEvents(ctx.store.db, accountId, since, new Date()));
      if (replayed) {
        ctx.scheduler?.wake();
        ctx.jobs?.wake();
      }
      return { status: 'ok', replayed };
    },
  );
}
