/**
 * /v1/sessions (issue 44): saved browser sessions of the account. The route parses, calls
 * app/browser-sessions.ts and shapes; no answer holds a cookie value, a stored value or a secret.
 */
import type { FastifyInstance } from 'fastify';
import {
  createBrowserSession,
  deleteBrowserSession,
  getBrowserSession,
  listBrowserSessions,
  refreshBrowserSession,
} from '../../app/browser-sessions.js';
import { SessionCreateBody } from '../../contract/schemas.js';
import { parseBody } from '../../contract/validation.js';
import type { ServerContext } from '../context.js';
import { docRoute, openapiRoute } from '../openapi.js';
import { docs } from '../openapi-responses.js';
import { withCredit } from '../plugins/api-scope.js';

interface NameParams {
  Params: { name: string };
}

export function browserSessionRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post(
    '/sessions',
    openapiRoute(
      SessionCreateBody,
      'Save a browser session: from a Playwright storageState, a cookie list, or a login recipe run in the browser',
      docs.createSession,
    ),
    async (request, reply) => {
      const body = parseBody(SessionCreateBody, request.body);
      const accountId = request.auth!.accountId;
      // A login recipe runs the browser against the site: 1 credit when it saves a session (402
      // without one), nothing when it fails. An uploaded state fetches nothing and is free.
      const session = body.login
        ? await withCredit(ctx, request, reply, () => createBrowserSession(ctx, accountId, body))
        : await createBrowserSession(ctx, accountId, body);
      reply.code(201);
      return { status: 'ok', session };
    },
  );

  app.get('/sessions', docRoute("The account's saved sessions", docs.listSessions), async (request) => ({
    status: 'ok',
    sessions: await listBrowserSessions(ctx, request.auth!.accountId),
  }));

  app.get<NameParams>('/sessions/:name', docRoute('A saved session', docs.getSession), async (request) => ({
    status: 'ok',
    session: await getBrowserSession(ctx, request.auth!.accountId, request.params.name),
  }));

  app.delete<NameParams>('/sessions/:name', docRoute('Delete a saved session', docs.deleteSession), async (request) => {
    await deleteBrowserSession(ctx, request.auth!.accountId, request.params.name);
    return { status: 'ok', name: request.params.name, deleted: true };
  });

  app.post<NameParams>(
    '/sessions/:name/refresh',
    docRoute("Log in again with the session's recipe", docs.refreshSession),
    // Runs the recipe in the browser: 1 credit when it logs in, nothing when it fails.
    async (request, reply) => ({
      status: 'ok',
      session: await withCredit(ctx, request, reply, () =>
        refreshBrowserSession(ctx, request.auth!.accountId, request.params.name),
      ),
    }),
  );
}
