/**
 * The error answers of the OpenAPI document: the contract's `{error, detail}` with an example
 * and a sentence per code, grouped by status; the codes most routes share; a success answer's
 * helper (schema, example, headers).
 */
import type { z } from 'zod';
import type { ErrorCode } from '../../errors.js';
import { CODES_WITHOUT_DETAIL, ERROR_CATALOGUE } from '../../errors.js';
import { jsonSchema } from '../openapi.js';

const ERROR_EXAMPLES: Record<ErrorCode, Record<string, unknown>> = {
  invalid_request: { error: 'invalid_request', detail: 'timeout_ms: must be an integer from 1000 to 120000' },
  unauthorized: { error: 'unauthorized' },
  insufficient_credits: { error: 'insufficient_credits' },
  forbidden_target: {
    error: 'forbidden_target',
    detail:
      'intranet.example resolves to 10.0.0.7, a private address; set TRAWL_ALLOW_PRIVATE_NETWORK=1 to allow private targets',
  },
  not_found: { error: 'not_found', detail: 'no monitor mon_4Jq8sPzK2mVb7TcXw9Ld' },
  payload_too_large: { error: 'payload_too_large', detail: 'body: the request body is larger than 1 MiB' },
  unsupported_media_type: {
    error: 'unsupported_media_type',
    detail: 'body: send the request body as JSON with Content-Type: application/json',
  },
  invalid_schema: { error: 'invalid_schema', detail: "schema.price: unknown type 'money'" },
  action_failed: { error: 'action_failed', detail: "actions[2]: no element matches '#more' within 5000 ms" },
  rate_limited: { error: 'rate_limited', retry_after: 2 },
  internal_error: { error: 'internal_error' },
  fetch_failed: { error: 'fetch_failed', detail: 'https://example.com/gone answered HTTP 404' },
  blocked: {
    error: 'blocked',
    detail:
      'https://www.amazon.com/dp/B0C1234567 answered with a bot wall (amazon robot check); it was not scraped and no credit was charged',
  },
  timeout: { error: 'timeout', detail: 'https://example.com/slow did not answer within 30000 ms' },
};

const WHEN: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'the body or a parameter is not valid; `detail` names the field',
  unauthorized: 'the API key is missing, malformed, unknown or revoked',
  insufficient_credits: 'the account has no credit left (nothing was done)',
  forbidden_target: 'the URL (or a redirect hop) resolves to a private, loopback, link-local or metadata address',
  not_found: 'no such resource for this account',
  payload_too_large:
    'the body is over 1 MiB (80 MiB for a batch scrape), or the answer would be over what one answer may hold (TRAWL_ANSWER_MAX_MB, 32 MiB; `detail` starts `answer:`; no credit is charged)',
  unsupported_media_type: 'the body was not sent as application/json',
  invalid_schema: 'the `schema` object is missing where required or not valid; `detail` names the path',
  rate_limited:
    'the key is over its rate limit, or the account already has 2 bodies over 1 MiB in flight; `retry_after` (and the Retry-After header) says in how many seconds to retry',
  internal_error: 'a bug, logged with the request id; no stack trace is sent',
  fetch_failed:
    'the target could not be fetched (DNS, connection, TLS, HTTP ≥ 400, unsupported content); no credit is charged',
  blocked: 'the target answered with a bot wall or captcha; no credit is charged',
  timeout: 'the work used its time budget (`timeout_ms`); no credit is charged',
};

const header = (description: string, type: 'string' | 'integer' = 'string') => ({ type, description });
export const REQUEST_ID = { 'x-request-id': header("This request's id (`req_…`), also in the usage log") };
const RATE_HEADERS = {
  ...REQUEST_ID,
  'x-ratelimit-limit': header('Requests per minute of this key', 'integer'),
  'x-ratelimit-remaining': header('Whole requests left in the bucket after this one', 'integer'),
  'x-ratelimit-reset': header('Seconds until the bucket is full again', 'integer'),
};

/** Error responses for the given codes, one per status (422 and 502 carry two codes each). */
export function errors(...codes: ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes)
    byStatus.set(ERROR_CATALOGUE[c].status, [...(byStatus.get(ERROR_CATALOGUE[c].status) ?? []), c]);
  const out: Record<string, unknown> = {};
  for (const [status, group] of byStatus) {
    const withDetail = group.some((c) => !CODES_WITHOUT_DETAIL.has(c));
    const limited = group.includes('rate_limited');
    const schema = {
      type: 'object',
      description: "The contract's error body: `error` is the code; `detail` a sentence a person can act on.",
      required: ['error', ...(limited ? ['retry_after'] : []), ...(withDetail ? ['detail'] : [])],
      properties: {
        error: { type: 'string', enum: group },
        ...(withDetail ? { detail: { type: 'string' } } : {}),
        // A body with several faults: every one, the first being `detail` (issue 43).
        ...(group.includes('invalid_request')
          ? {
              errors: {
                type: 'array',
                description: 'Every fault of the body, in order, when there are two or more',
                items: {
                  type: 'object',
                  required: ['field', 'detail'],
                  properties: { field: { type: 'string' }, detail: { type: 'string' } },
                  additionalProperties: false,
                },
              },
            }
          : {}),
        ...(limited
          ? {
              retry_after: {
                type: 'integer',
                minimum: 1,
                description: 'Whole seconds until a request would be accepted',
              },
            }
          : {}),
      },
      additionalProperties: false,
    };
    out[status] = {
      description: group.map((c) => `\`${c}\`: ${WHEN[c] ?? ERROR_CATALOGUE[c].message}`).join('; '),
      headers: limited
        ? { ...REQUEST_ID, 'retry-after': header('Seconds to wait, the same as `retry_after`', 'integer') }
        : REQUEST_ID,
      content: {
        'application/json': {
          schema,
          examples: Object.fromEntries(group.map((c) => [c, { summary: c, value: ERROR_EXAMPLES[c] }])),
        },
      },
    };
  }
  return out;
}

/** Every /v1 request can meet these (key, rate limit, a bug). */
export const ALWAYS: ErrorCode[] = ['unauthorized', 'rate_limited', 'internal_error'];
/** A JSON body that cannot be read. */
export const BODY: ErrorCode[] = ['invalid_request', 'payload_too_large', 'unsupported_media_type'];
/** Billable work on a target page. */
export const FETCHING: ErrorCode[] = ['insufficient_credits', 'forbidden_target', 'fetch_failed', 'blocked', 'timeout'];

/** A success answer with its schema and one example. */
export function answer(
  status: number,
  description: string,
  schema: z.ZodType,
  example: unknown,
  headers: Record<string, unknown> = RATE_HEADERS,
): Record<string, unknown> {
  return {
    [status]: {
      description,
      headers,
      content: { 'application/json': { schema: jsonSchema(schema, 'output'), example } },
    },
  };
}
