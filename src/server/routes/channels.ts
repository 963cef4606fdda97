/**
 * /v1/channels (docs/API.md "Notifications"): an account's notification channels, and a test
 * message on request. Only a delivered test message costs a credit (1).
 */
import type { FastifyInstance } from 'fastify';
import {
  createChannel,
  deleteChannel,
  findChannel,
  listChannels,
  presentChannel,
  testChannel,
  updateChannel,
} from '../../app/channels.js';
import { publicBase } from '../../app/stores.js';
import { CreateChannelBody, UpdateChannelBody } from '../../contract/schemas.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { docRoute, openapiRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';

type IdParams = { Params: { id: string } };

export function channelRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post(
    '/channels',
    openapiRoute(
      CreateChannelBody,
      'Create a notification channel (email, Slack, Discord, Teams, Telegram, JSON)',
      docs.createChannel,
    ),
    async (request, reply) => {
      const c = await createChannel(ctx, request.auth!.accountId, request.body);
      reply.code(201);
      return { status: 'ok', channel: presentChannel(c) };
    },
  );

  app.get('/channels', docRoute('List notification channels by name', docs.listChannels), async (request) => {
    const rows = await listChannels(ctx, request.auth!.accountId);
    return { status: 'ok', channels: rows.map(presentChannel) };
  });

  app.get<IdParams>('/channels/:id', docRoute('A channel with its health', docs.getChannel), async (request) => ({
    status: 'ok',
    channel: presentChannel(await findChannel(ctx, request.auth!.accountId, request.params.id)),
  }));

  app.patch<IdParams>(
    '/channels/:id',
    openapiRoute(UpdateChannelBody, 'Change name, destination, templates, default or state', docs.updateChannel),
    async (request) => ({
      status: 'ok',
      channel: presentChannel(await updateChannel(ctx, request.auth!.accountId, request.params.id, request.body)),
    }),
  );

  app.delete<IdParams>('/channels/:id', docRoute('Delete a channel', docs.deleteChannel), async (request) => {
    await deleteChannel(ctx, request.auth!.accountId, request.params.id);
    return { status: 'ok', channel_id: request.params.id, deleted: true };
  });

  app.post<IdParams>(
    '/channels/:id/test',
    docRoute('Send a test message now and answer how the channel answered', docs.testChannel),
    async (request, reply) => {
      const accountId = request.auth!.accountId;
      // A delivered test costs 1 credit (402 without one): otherwise it would send email through
      // the operator's SMTP, or posts to any URL, for free and without end. A failed one is free.
      const found = await findChannel(ctx, accountId, request.params.id);
      const result = await withCredit(
        ctx,
        request,
        reply,
        (_signal, engine) => testChannel(ctx, accountId, found.id, publicBase(ctx, request), engine),
        (r) => !r.delivered,
      );
      return { status: 'ok', ...result };
    },
  );
}
