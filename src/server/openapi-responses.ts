/**
 * What every operation answers, for the OpenAPI document and the reference at /docs: the success
 * body (a Zod object, converted like the request bodies), the error bodies each route can return
 * (the contract's `{error, detail}` with the codes of section 2, grouped by status) and examples.
 * Documentation only: answers are serialised as the routes build them (see openapi.ts). The parts
 * are in openapi-docs/: errors, answer shapes, examples, parameters, and the operations.
 */
import { z } from 'zod';
import { docRoute } from './openapi.js';
import { answer, REQUEST_ID } from './openapi-docs/errors.js';
import { ok } from './openapi-docs/shapes.js';
import { pageDocs } from './openapi-docs/pages.js';
import { monitorDocs } from './openapi-docs/monitors.js';
import { channelDocs } from './openapi-docs/channels.js';
import { sessionDocs } from './openapi-docs/sessions.js';

/** Every /v1 operation's document, by the name its route passes. */
export const docs = { ...pageDocs, ...monitorDocs, ...channelDocs, ...sessionDocs };

// ---------------------------------------------------------------------------------------------
// Operator endpoints (public)

const Check = z
  .object({ status: z.enum(['ok', 'fail']), latency_ms: z.number().int().optional(), error: z.string().optional() })
  .catchall(z.unknown());
const Readiness = z.object({
  status: z.enum(['ok', 'fail']),
  checks: z.record(z.string(), Check).describe('store always; redis when REDIS_URL is set; workers in scale-out'),
});

export const healthDoc = docRoute('Liveness: the process answers', {
  operationId: 'healthz',
  tags: ['Operations'],
  public: true,
  response: answer(200, 'Alive', z.object({ status: ok }), { status: 'ok' }, REQUEST_ID),
});

export const readyDoc = docRoute(
  'Readiness: the store answers, Redis answers (when configured), workers are alive (scale-out)',
  {
    operationId: 'readyz',
    tags: ['Operations'],
    public: true,
    response: {
      ...answer(
        200,
        'Ready',
        Readiness,
        {
          status: 'ok',
          checks: {
            store: { status: 'ok', latency_ms: 1, dialect: 'postgres' },
            redis: { status: 'ok', latency_ms: 0 },
            workers: { status: 'ok', live: 2 },
          },
        },
        REQUEST_ID,
      ),
      ...answer(
        503,
        'Not ready: the failed checks say why (no addresses, no credentials)',
        Readiness,
        {
          status: 'fail',
          checks: {
            store: { status: 'fail', error: 'no answer within 2000 ms' },
            redis: { status: 'ok', latency_ms: 0 },
            workers: { status: 'ok', live: 2 },
          },
        },
        REQUEST_ID,
      ),
    },
  },
);
