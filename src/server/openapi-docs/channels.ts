/** The operations on notification channels (docs/API.md "Notifications"). */
import { z } from 'zod';
import { ALWAYS, answer, BODY, errors } from './errors.js';
import { iso, ok } from './shapes.js';
import { doc, idParam } from './params.js';

const Channel = z.object({
  channel_id: z.string(),
  name: z.string(),
  kind: z.enum(['email', 'slack', 'discord', 'msteams', 'telegram', 'json']),
  target: z.string().describe('Where it sends, its secret part hidden: slack://hooks.slack.com/…/****'),
  default: z.boolean(),
  subject_template: z.string().nullable(),
  body_template: z.string().nullable(),
  state: z.enum(['active', 'disabled']),
  disabled_at: iso.nullable().optional(),
  disabled_reason: z.string().nullable().optional(),
  health: z.object({
    last_success_at: iso.nullable(),
    last_failure_at: iso.nullable(),
    consecutive_failures: z.number().int(),
    failing_since: iso.nullable(),
    last_error: z.string().nullable(),
  }),
  created_at: iso,
  updated_at: iso,
});

const AT = '2026-11-29T02:00:00.000Z';
const CHANNEL = {
  channel_id: 'chn_4Jq8sPzK2mVb7TcXw9Ld',
  name: 'ops-slack',
  kind: 'slack',
  target: 'slack://hooks.slack.com/…/****',
  default: false,
  subject_template: null,
  body_template: null,
  state: 'active',
  health: {
    last_success_at: AT,
    last_failure_at: null,
    consecutive_failures: 0,
    failing_since: null,
    last_error: null,
  },
  created_at: AT,
  updated_at: AT,
};
const one = (code: number, what: string) =>
  answer(code, what, z.object({ status: ok, channel: Channel }), { status: 'ok', channel: CHANNEL });
const tags = ['Notifications'];

export const channelDocs = {
  createChannel: doc({
    operationId: 'createChannel',
    tags,
    description: 'Needs TRAWL_SECRET_KEY on the service (400 without it). Costs no credit.',
    bodyExamples: {
      slack: { summary: 'Slack by Apprise URL', value: { name: 'ops-slack', url: 'slack://T0AAAA/B0BBBB/xxxxxxxx' } },
      email: {
        summary: 'Email to two people',
        value: { name: 'buyers', kind: 'email', to: ['a@example.com', 'b@example.com'] },
      },
    },
    response: { ...one(201, 'The channel'), ...errors(...BODY, ...ALWAYS, 'forbidden_target') },
  }),
  listChannels: doc({
    operationId: 'listChannels',
    tags,
    response: {
      ...answer(200, "The account's channels by name", z.object({ status: ok, channels: z.array(Channel) }), {
        status: 'ok',
        channels: [CHANNEL],
      }),
      ...errors(...ALWAYS),
    },
  }),
  getChannel: doc({
    operationId: 'getChannel',
    tags,
    params: idParam('chn', 'channel'),
    response: { ...one(200, 'The channel with its health'), ...errors('not_found', ...ALWAYS) },
  }),
  updateChannel: doc({
    operationId: 'updateChannel',
    tags,
    params: idParam('chn', 'channel'),
    bodyExamples: { rename: { summary: 'Rename and re-enable', value: { name: 'ops', state: 'active' } } },
    response: { ...one(200, 'The channel'), ...errors(...BODY, 'not_found', ...ALWAYS, 'forbidden_target') },
  }),
  deleteChannel: doc({
    operationId: 'deleteChannel',
    tags,
    params: idParam('chn', 'channel'),
    response: {
      ...answer(
        200,
        'Deleted (its messages not yet sent are not sent)',
        z.object({ status: ok, channel_id: z.string(), deleted: z.boolean() }),
        { status: 'ok', channel_id: CHANNEL.channel_id, deleted: true },
      ),
      ...errors('not_found', ...ALWAYS),
    },
  }),
  testChannel: doc({
    operationId: 'testChannel',
    tags,
    params: idParam('chn', 'channel'),
    description:
      'Sends a test message now (not retried) and answers how the channel answered. Costs 1 credit when delivered (402 without one); a failed send is free.',
    response: {
      ...answer(
        200,
        'How the channel answered: delivered, its status (HTTP, or the SMTP reply code) and the error',
        z.object({
          status: ok,
          delivered: z.boolean(),
          response_status: z.number().int().nullable(),
          error: z.string().nullable(),
          duration_ms: z.number().int(),
        }),
        { status: 'ok', delivered: true, response_status: 200, error: null, duration_ms: 120 },
      ),
      ...errors('invalid_request', 'not_found', 'insufficient_credits', ...ALWAYS),
    },
  }),
};
