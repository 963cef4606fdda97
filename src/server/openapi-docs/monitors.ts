/** The operations on monitors, their runs, history and webhook deliveries. */
import { z } from 'zod';
import { ALWAYS, answer, BODY, errors } from './errors.js';
import { cursor, Delivery, iso, Monitor, MonitorDetail, ok, Run } from './shapes.js';
import { AT, DELIVERY, MONITOR, RUN } from './examples.js';
import { cursorParam, doc, idParam, limitQuery } from './params.js';

export const monitorDocs = {
  createMonitor: doc({
    operationId: 'createMonitor',
    tags: ['Monitors'],
    description: 'Costs no credit; each run does. The account needs a credit to create one.',
    bodyExamples: {
      price: {
        summary: 'Watch a price and stock every 6 hours',
        value: {
          url: 'https://shop.example.com/lamp',
          interval: '6h',
          watch: ['price', 'in_stock'],
          webhook: 'https://hooks.example.com/trawl',
          schema: { price: 'number', in_stock: 'boolean' },
        },
      },
    },
    response: {
      ...answer(201, 'The monitor', z.object({ status: ok, monitor: Monitor }), { status: 'ok', monitor: MONITOR }),
      ...errors(...BODY, ...ALWAYS, 'insufficient_credits', 'forbidden_target', 'invalid_schema'),
    },
  }),
  listMonitors: doc({
    operationId: 'listMonitors',
    tags: ['Monitors'],
    querystring: limitQuery(50, 100, cursorParam),
    response: {
      ...answer(
        200,
        'Monitors, newest first',
        z.object({ status: ok, monitors: z.array(Monitor), next_cursor: cursor }),
        { status: 'ok', monitors: [MONITOR], next_cursor: null },
      ),
      ...errors('invalid_request', ...ALWAYS),
    },
  }),
  getMonitor: doc({
    operationId: 'getMonitor',
    tags: ['Monitors'],
    params: idParam('mon', 'monitor'),
    response: {
      ...answer(200, 'The monitor with its last values and runs', z.object({ status: ok, monitor: MonitorDetail }), {
        status: 'ok',
        monitor: {
          ...MONITOR,
          last_run_at: AT,
          consecutive_failures: 0,
          last_success_at: AT,
          last_values: RUN.values,
          last_runs: [RUN],
          unchanged_runs_collapsed: 0,
        },
      }),
      ...errors('not_found', ...ALWAYS),
    },
  }),
  updateMonitor: doc({
    operationId: 'updateMonitor',
    tags: ['Monitors'],
    params: idParam('mon', 'monitor'),
    bodyExamples: {
      pause: { summary: 'Pause it', value: { state: 'paused' } },
      conditions: {
        summary: 'Hourly, and only tell when the price drops under 40',
        value: { interval: '1h', conditions: [{ field: 'price', op: 'lt', value: 40 }] },
      },
    },
    response: {
      ...answer(200, 'The monitor as changed', z.object({ status: ok, monitor: Monitor }), {
        status: 'ok',
        monitor: { ...MONITOR, state: 'paused', next_run_at: null },
      }),
      ...errors(...BODY, 'not_found', 'forbidden_target', ...ALWAYS),
    },
  }),
  deleteMonitor: doc({
    operationId: 'deleteMonitor',
    tags: ['Monitors'],
    params: idParam('mon', 'monitor'),
    response: {
      ...answer(
        200,
        'Deleted, with its runs and unsent deliveries',
        z.object({ status: ok, monitor_id: z.string(), deleted: z.literal(true) }),
        { status: 'ok', monitor_id: MONITOR.monitor_id, deleted: true },
      ),
      ...errors('not_found', ...ALWAYS),
    },
  }),
  runMonitor: doc({
    operationId: 'runMonitor',
    tags: ['Monitors'],
    params: idParam('mon', 'monitor'),
    description: 'Runs now (also when paused); the run costs its credit (none left: the run is recorded `skipped`).',
    response: {
      ...answer(200, 'The run as it ended', z.object({ status: ok, run: Run }), { status: 'ok', run: RUN }),
      ...errors('not_found', ...ALWAYS),
    },
  }),
  listMonitorRuns: doc({
    operationId: 'listMonitorRuns',
    tags: ['Monitors'],
    params: idParam('mon', 'monitor'),
    querystring: limitQuery(50, 500),
    response: {
      ...answer(
        200,
        'Runs, newest first, and the unchanged runs older than a day counted per UTC day',
        z.object({
          status: ok,
          runs: z.array(Run),
          unchanged_runs_collapsed: z.object({
            total: z.number().int(),
            days: z.array(z.object({ day: z.string(), runs: z.number().int() })),
          }),
        }),
        {
          status: 'ok',
          runs: [RUN],
          unchanged_runs_collapsed: { total: 3, days: [{ day: '2026-11-24', runs: 3 }] },
        },
      ),
      ...errors('invalid_request', 'not_found', ...ALWAYS),
    },
  }),
  getMonitorHistory: doc({
    operationId: 'getMonitorHistory',
    tags: ['Monitors'],
    params: idParam('mon', 'monitor'),
    querystring: {
      type: 'object',
      required: ['field'],
      properties: {
        field: { type: 'string', description: 'A watched field' },
        ...limitQuery(100, 1000).properties,
        ...cursorParam,
      },
    },
    response: {
      ...answer(
        200,
        'Values of the field over successful runs, oldest first within the page',
        z.object({
          status: ok,
          field: z.string(),
          points: z.array(z.object({ at: iso, value: z.unknown() })),
          next_cursor: cursor,
        }),
        {
          status: 'ok',
          field: 'price',
          points: [
            { at: '2026-11-25T09:30:00.000Z', value: 19.99 },
            { at: AT, value: 17.99 },
          ],
          next_cursor: null,
        },
      ),
      ...errors('invalid_request', 'not_found', ...ALWAYS),
    },
  }),
  listMonitorDeliveries: doc({
    operationId: 'listMonitorDeliveries',
    tags: ['Webhooks'],
    params: idParam('mon', 'monitor'),
    querystring: limitQuery(50, 500),
    response: {
      ...answer(
        200,
        'Deliveries, newest first, with every attempt',
        z.object({ status: ok, deliveries: z.array(Delivery) }),
        { status: 'ok', deliveries: [DELIVERY] },
      ),
      ...errors('invalid_request', 'not_found', ...ALWAYS),
    },
  }),
  redeliver: doc({
    operationId: 'redeliverDelivery',
    tags: ['Webhooks'],
    params: {
      type: 'object',
      required: ['id', 'delivery_id'],
      properties: {
        id: idParam('mon', 'monitor').properties.id,
        delivery_id: { type: 'string', pattern: '^dlv_[0-9A-Za-z]{20}$' },
      },
    },
    description:
      "Sends the event again now: same body and id, fresh timestamp and signatures, the monitor's current webhook URL; logged as a manual attempt.",
    response: {
      ...answer(200, 'The delivery with the new attempt', z.object({ status: ok, delivery: Delivery }), {
        status: 'ok',
        delivery: DELIVERY,
      }),
      ...errors('not_found', ...ALWAYS),
    },
  }),
  replayWebhooks: doc({
    operationId: 'replayWebhooks',
    tags: ['Webhooks'],
    bodyExamples: {
      all: { summary: 'Every failed delivery since a time', value: { since: '2026-11-25T00:00:00Z' } },
      monitor: {
        summary: "One monitor's",
        value: { since: '2026-11-25T00:00:00Z', monitor_id: 'mon_4Jq8sPzK2mVb7TcXw9Ld' },
      },
    },
    response: {
      ...answer(
        200,
        'How many failed deliveries were scheduled again (the scheduler sends them)',
        z.object({ status: ok, replayed: z.number().int() }),
        { status: 'ok', replayed: 3 },
      ),
      ...errors(...BODY, 'not_found', ...ALWAYS),
    },
  }),
};
