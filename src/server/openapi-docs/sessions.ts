/** The operations on saved browser sessions (issue 44): answers never hold a cookie value, a stored value or a secret. */
import { z } from 'zod';
import { ALWAYS, answer, BODY, errors } from './errors.js';
import { ok } from './shapes.js';
import { AT } from './examples.js';
import { doc } from './params.js';

const nameParam = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$', description: "The session's name" },
  },
};

const Session = z.object({
  name: z.string(),
  sites: z.array(z.string()).describe('Registrable domains: the session goes to these and no other'),
  status: z.enum(['active', 'expired', 'unreadable']),
  has_login: z.boolean().describe('Made by a login recipe, which runs again on refresh or expiry'),
  cookies: z.array(z.object({ name: z.string(), domain: z.string(), expires_at: z.string().nullable() })),
  cookie_count: z.number().int(),
  local_storage: z.array(z.object({ origin: z.string(), items: z.number().int() })),
  expires_at: z.string().nullable().describe("The first of its cookies' expiry times"),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  last_refreshed_at: z.string().nullable(),
  expired_at: z.string().nullable(),
});

const SESSION = {
  name: 'shop',
  sites: ['example.com'],
  status: 'active',
  has_login: true,
  cookies: [{ name: 'sid', domain: 'www.example.com', expires_at: AT }],
  cookie_count: 1,
  local_storage: [{ origin: 'https://www.example.com', items: 2 }],
  expires_at: AT,
  created_at: AT,
  last_used_at: null,
  last_refreshed_at: AT,
  expired_at: null,
};

const one = (status: number, what: string) =>
  answer(status, what, z.object({ status: ok, session: Session }), { status: 'ok', session: SESSION });

export const sessionDocs = {
  createSession: doc({
    operationId: 'createSession',
    tags: ['Sessions'],
    description:
      'Needs TRAWL_SECRET_KEY on the server (400 without it). Exactly one of storage_state, cookies or login. Costs no credit.',
    bodyExamples: {
      login: {
        summary: 'Log in with a recipe (secrets given once, sealed)',
        value: {
          name: 'shop',
          login: {
            url: 'https://www.example.com/login',
            actions: [
              { type: 'write', selector: '#user', text: 'me@example.com' },
              { type: 'write', selector: '#password', text: '{{secret.PASSWORD}}' },
              { type: 'click', selector: 'button[type=submit]' },
              { type: 'wait', milliseconds: 1000 },
            ],
            secrets: { PASSWORD: 'correct horse battery staple' },
          },
        },
      },
      cookies: {
        summary: 'Upload cookies',
        value: { name: 'shop', cookies: [{ name: 'sid', value: 'abc123', domain: 'www.example.com' }] },
      },
    },
    response: {
      ...one(201, 'The session (names, domains, counts, times; never a value)'),
      ...errors(...BODY, ...ALWAYS, 'action_failed', 'forbidden_target', 'fetch_failed', 'blocked', 'timeout'),
    },
  }),
  listSessions: doc({
    operationId: 'listSessions',
    tags: ['Sessions'],
    response: {
      ...answer(200, "The account's sessions, by name", z.object({ status: ok, sessions: z.array(Session) }), {
        status: 'ok',
        sessions: [SESSION],
      }),
      ...errors('invalid_request', ...ALWAYS),
    },
  }),
  getSession: doc({
    operationId: 'getSession',
    tags: ['Sessions'],
    params: nameParam,
    response: { ...one(200, 'The session'), ...errors('invalid_request', 'not_found', ...ALWAYS) },
  }),
  deleteSession: doc({
    operationId: 'deleteSession',
    tags: ['Sessions'],
    params: nameParam,
    response: {
      ...answer(200, 'Deleted', z.object({ status: ok, name: z.string(), deleted: z.boolean() }), {
        status: 'ok',
        name: 'shop',
        deleted: true,
      }),
      ...errors('invalid_request', 'not_found', ...ALWAYS),
    },
  }),
  refreshSession: doc({
    operationId: 'refreshSession',
    tags: ['Sessions'],
    params: nameParam,
    description: 'Runs the login recipe again. Costs no credit.',
    response: {
      ...one(200, 'The session, logged in again'),
      ...errors(
        'invalid_request',
        'not_found',
        ...ALWAYS,
        'action_failed',
        'forbidden_target',
        'fetch_failed',
        'blocked',
        'timeout',
      ),
    },
  }),
};
