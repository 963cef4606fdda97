/** Request bodies of the API, one Zod object each; routes parse with them, OpenAPI is made from them. */
import { z } from 'zod';
import { FORMATS } from '../engine/scrape.js';
import { bool, httpUrl, intIn, oneOf, text } from './validation.js';
import { ActionBody, captureOptions, pageOptions, proxyOption, scrapeFormats } from './page-options.js';

const schemaObject = z
  .unknown()
  .describe(
    'A JSON Schema ({"type":"object","properties":{…}}: objects, arrays, string/number/integer/boolean, enum, format, description, required) or the short form: field name → "string" | "number" | "integer" | "boolean" | {…} | [T]',
  );

/** A crawl page's formats: the document's and a screenshot. */
const CRAWL_FORMATS = [...FORMATS, 'screenshot', 'screenshot@full_page'];
const documentFormats = z
  .array(oneOf(CRAWL_FORMATS as [string, ...string[]]), { error: `must be an array of ${CRAWL_FORMATS.join(', ')}` })
  .min(1, { error: 'must list at least one format' })
  .max(CRAWL_FORMATS.length, { error: `must list at most ${CRAWL_FORMATS.length} formats` });

const SESSION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
export const sessionName = z
  .string({ error: 'must be a session name' })
  .regex(SESSION_NAME, { error: 'must be 1 to 100 letters, digits, ".", "_" or "-", starting with a letter or digit' });

export const ScrapeBody = z.strictObject({
  url: httpUrl(),
  formats: scrapeFormats.optional(),
  schema: schemaObject.optional(),
  prompt: text(1, 2000)
    .optional()
    .describe(
      'What to extract, in words: a hint for the LLM pass, or (with an LLM configured) the json format without a schema',
    ),
  only_main_content: bool().optional(),
  render: oneOf(['auto', 'http', 'browser']).optional(),
  timeout_ms: intIn(1000, 120_000).optional(),
  wait_for: z
    .union([text(1, 500), intIn(0, 60_000)], {
      error: 'must be a CSS selector or a number of milliseconds from 0 to 60000',
    })
    .optional(),
  pdf: z
    .strictObject({ max_pages: intIn(1, 10_000).optional() }, { error: 'must be an object like {"max_pages": 200}' })
    .optional()
    .describe('PDF documents: read at most max_pages pages (default 200)'),
  // Browser-grade options (contract section 9).
  ...pageOptions,
  ...captureOptions,
  proxy: proxyOption,
  session: sessionName
    .optional()
    .describe(
      "A saved browser session's name (/v1/sessions): its cookies and localStorage go with the page, to its own sites only",
    ),
});
export type ScrapeBody = z.output<typeof ScrapeBody>;

export const ErrorBody = z.object({
  error: z.string(),
  detail: z.string().optional(),
  retry_after: z.number().int().optional(),
});

export const ExtractBody = z.strictObject({
  urls: z
    .array(httpUrl(), {
      error: (iss) => (iss.input === undefined ? 'is required' : 'must be an array of 1 to 20 http or https URLs'),
    })
    .min(1, { error: 'must be an array of 1 to 20 http or https URLs' })
    .max(20, { error: 'must be an array of 1 to 20 http or https URLs' }),
  // Checked by the schema compiler, which answers 422 invalid_schema (also when missing).
  schema: schemaObject.optional(),
  prompt: text(1, 2000).optional(),
  render: oneOf(['auto', 'http', 'browser']).optional(),
  timeout_ms: intIn(1000, 120_000).optional(),
  ...pageOptions,
});
export type ExtractBody = z.output<typeof ExtractBody>;

const glob = text(1, 500);

/** A job's webhook (contract section 7): job.completed always; job.page when asked for. */
const JOB_EVENTS = ['job.completed', 'job.page'] as const;
const jobWebhook = {
  webhook: httpUrl()
    .optional()
    .describe('Where job.completed (and, when asked, job.page) events are sent, signed as in section 5'),
  webhook_events: z
    .array(oneOf([...JOB_EVENTS]), { error: `must be an array of event types: ${JOB_EVENTS.join(', ')}` })
    .max(JOB_EVENTS.length, { error: 'must not list an event type twice' })
    .refine((a) => new Set(a).size === a.length, { error: 'must not list an event type twice' })
    .optional()
    .describe('Opt-in events besides job.completed: ["job.page"]'),
};

export const CrawlBody = z.strictObject({
  url: httpUrl(),
  max_depth: intIn(0, 10).optional(),
  /** ≤ 1,000 synchronous; ≤ 100,000 with `async` (checked in the route, which knows both). */
  limit: intIn(1, 100_000, 'must be an integer from 1 to 1000 (up to 100000 with "async": true)').optional(),
  async: bool().optional(),
  include_paths: z
    .array(glob, { error: 'must be an array of path globs' })
    .max(50, { error: 'must have at most 50 patterns' })
    .optional(),
  exclude_paths: z
    .array(glob, { error: 'must be an array of path globs' })
    .max(50, { error: 'must have at most 50 patterns' })
    .optional(),
  allow_subdomains: bool().optional(),
  respect_robots: bool().optional(),
  use_sitemap: bool().optional(),
  formats: documentFormats.optional(),
  schema: schemaObject.optional(),
  only_main_content: bool().optional(),
  timeout_ms: intIn(1000, 300_000).optional(),
  // Every page's scrape options (contract section 9): how it is read, and a screenshot of it.
  render: oneOf(['auto', 'http', 'browser']).optional().describe('How each page is read (default http)'),
  wait_for: ScrapeBody.shape.wait_for,
  ...pageOptions,
  ...captureOptions,
  ...jobWebhook,
});
export type CrawlBody = z.output<typeof CrawlBody>;

export const BatchScrapeBody = z.strictObject({
  urls: z
    .array(httpUrl(), { error: 'must be an array of http or https URLs' })
    .min(1, { error: 'must list at least one URL' })
    .max(10_000, { error: 'must list at most 10000 URLs' }),
  formats: ScrapeBody.shape.formats,
  schema: schemaObject.optional(),
  only_main_content: bool().optional(),
  render: oneOf(['auto', 'http', 'browser']).optional(),
  timeout_ms: intIn(1000, 120_000).optional(),
  wait_for: ScrapeBody.shape.wait_for,
  pdf: ScrapeBody.shape.pdf,
  ...pageOptions,
  ...captureOptions,
  ...jobWebhook,
});
export type BatchScrapeBody = z.output<typeof BatchScrapeBody>;

export const MapBody = z.strictObject({
  url: httpUrl(),
  limit: intIn(1, 30_000).optional(),
  search: text(1, 400).optional(),
  use_sitemap: bool().optional(),
  allow_subdomains: bool().optional(),
  timeout_ms: intIn(1000, 120_000).optional(),
});
export type MapBody = z.output<typeof MapBody>;

export const SearchBody = z.strictObject({
  query: text(1, 400),
  limit: intIn(1, 20).optional(),
  scrape: bool().optional(),
  country: z
    .string({ error: 'must be an ISO 3166-1 alpha-2 code such as "US"' })
    .regex(/^[A-Za-z]{2}$/, { error: 'must be an ISO 3166-1 alpha-2 code such as "US"' })
    .optional(),
  language: z
    .string({ error: 'must be an ISO 639-1 code such as "en"' })
    .regex(/^[A-Za-z]{2}(?:-[A-Za-z]{2})?$/, { error: 'must be an ISO 639-1 code such as "en"' })
    .optional(),
  timeout_ms: intIn(1000, 60_000).optional(),
});
export type SearchBody = z.output<typeof SearchBody>;

export const MarketplaceBody = z.strictObject({
  marketplace: z.string({
    error: (iss) => (iss.input === undefined ? 'is required' : 'must be a marketplace id such as "amazon_us"'),
  }),
  url: httpUrl(),
  mode: oneOf(['basic', 'rich']).optional(),
  render: oneOf(['auto', 'http', 'browser']).optional(),
  timeout_ms: intIn(1000, 120_000).optional(),
});
export type MarketplaceBody = z.output<typeof MarketplaceBody>;

export const MetaAdsBody = z.strictObject({
  advertiser: z
    .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a page handle such as "nike"') })
    .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, {
      error:
        'must be a page handle: 1 to 64 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit',
    }),
  country: z
    .string({
      error: (iss) =>
        iss.input === undefined
          ? 'is required'
          : 'must be an upper-case ISO 3166-1 alpha-2 code such as "US", or "ALL"',
    })
    .regex(/^(?:[A-Z]{2}|ALL)$/, { error: 'must be an upper-case ISO 3166-1 alpha-2 code such as "US", or "ALL"' }),
  active_status: oneOf(['active', 'inactive', 'all']).optional(),
  platforms: z
    .array(oneOf(['facebook', 'instagram']), { error: 'must be an array of "facebook" and/or "instagram"' })
    .min(1, { error: 'must list at least one of "facebook", "instagram"' })
    .max(2, { error: 'must be an array of "facebook" and/or "instagram"' })
    .refine((a) => new Set(a).size === a.length, { error: 'must not list a platform twice' })
    .optional(),
  limit: intIn(1, 500).optional(),
  timeout_ms: intIn(1000, 120_000).optional(),
});
export type MetaAdsBody = z.output<typeof MetaAdsBody>;

/** An ISO-8601 date and time with its offset, e.g. "2026-11-26T00:00:00Z". */
/** The calendar date exists (Date.parse reads 2026-02-30 as 2 March). */
const realDate = (s: string) => {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number);
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
};

const isoTime = z
  .string({
    error: (iss) =>
      iss.input === undefined ? 'is required' : 'must be an ISO-8601 date and time such as "2026-11-26T00:00:00Z"',
  })
  .max(40, { error: 'must be an ISO-8601 date and time such as "2026-11-26T00:00:00Z"' })
  .refine(
    (s) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(s) &&
      !Number.isNaN(Date.parse(s)) &&
      realDate(s),
    {
      error: 'must be an ISO-8601 date and time with its offset, such as "2026-11-26T00:00:00Z"',
    },
  );

export const ReplayBody = z.strictObject({
  since: isoTime,
  monitor_id: text(1, 64).optional(),
});
export type ReplayBody = z.output<typeof ReplayBody>;

/** Notification channels (docs/API.md "Notifications"). */
export const CHANNEL_KIND_VALUES = ['email', 'slack', 'discord', 'msteams', 'telegram', 'json'] as const;
const channelName = text(1, 64).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, {
  error: 'must be 1 to 64 letters, digits, _ . - (beginning with a letter or digit)',
});
const template = text(0, 4000).nullable();
const channelFields = {
  url: text(1, 2000)
    .optional()
    .describe('Apprise-style: mailto://, slack://, discord://, msteams://, tgram://, json://, jsons://'),
  kind: oneOf(CHANNEL_KIND_VALUES).optional(),
  to: z.array(text(3, 254), { error: 'must be an array of email addresses' }).optional(),
  webhook_url: text(1, 2000).optional().describe('slack, discord, msteams, json: the URL messages are POSTed to'),
  bot_token: text(1, 200).optional(),
  chat_id: text(1, 64).optional(),
  subject_template: template.optional(),
  body_template: template.optional(),
  default: bool()
    .optional()
    .describe('true: notified of every monitor of the account, not only those naming it in notify'),
};
export const CreateChannelBody = z.strictObject({ name: channelName, ...channelFields });
export type CreateChannelBody = z.output<typeof CreateChannelBody>;
export const UpdateChannelBody = z.strictObject({
  name: channelName.optional(),
  ...channelFields,
  state: oneOf(['active', 'disabled']).optional().describe('active re-enables a disabled channel'),
});
export type UpdateChannelBody = z.output<typeof UpdateChannelBody>;
/** A monitor's channels, by name (create and update of /v1/monitors). */
export const notifyList = z
  .array(channelName, { error: 'must be an array of channel names' })
  .max(20, { error: 'must name at most 20 channels' });
// Saved browser sessions (issue 44). Values given here are sealed at once and never shown again.

// A name or value a Cookie header cannot carry would become another cookie (`;`, `=`) or break the request (CR, LF).
const cookieValue = z
  .string({ error: 'must be a string' })
  .max(4096, { error: 'must be at most 4096 characters' })
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  .regex(/^[^;\x00-\x1f\x7f]*$/, {
    error: 'must not hold ";" or control characters (a Cookie header could not carry it)',
  });
const storedCookie = z.object(
  {
    name: z
      .string({ error: 'must be a string' })
      .min(1, { error: 'must not be empty' })
      .max(256)
      // eslint-disable-next-line no-control-regex -- control characters are what it refuses
      .regex(/^[^;=\x00-\x20\x7f]+$/, { error: 'must not hold ";", "=", spaces or control characters' }),
    value: cookieValue,
    domain: z
      .string({ error: 'must be a host name' })
      .regex(/^\.?[A-Za-z0-9.-]{1,253}$/, { error: 'must be a host name such as example.com' }),
    path: z.string().max(1024).optional(),
    expires: z.number({ error: 'must be Unix seconds, or -1' }).optional(),
    httpOnly: z.boolean().optional(),
    secure: z.boolean().optional(),
    sameSite: z.enum(['Strict', 'Lax', 'None'], { error: 'must be Strict, Lax or None' }).optional(),
  },
  { error: 'must be a cookie {"name","value","domain",…}' },
);

export const SessionCreateBody = z
  .strictObject({
    name: sessionName.describe('Unique per account; how requests name it (session: "name")'),
    sites: z
      .array(text(1, 253), { error: 'must be an array of host names such as ["example.com"]' })
      .min(1, { error: 'must list at least one site' })
      .max(20, { error: 'must list at most 20 sites' })
      .optional()
      .describe(
        "The sites (registrable domains) it belongs to; default: those of the login URL or of the cookies' domains",
      ),
    storage_state: z
      .object(
        {
          cookies: z
            .array(storedCookie, { error: 'must be an array of cookies' })
            .max(300, { error: 'must have at most 300 cookies' }),
          origins: z
            .array(
              z.object({
                origin: httpUrl('an origin such as https://example.com'),
                localStorage: z
                  .array(z.object({ name: z.string().max(1024), value: z.string().max(100_000) }), {
                    error: 'must be an array of {"name","value"}',
                  })
                  .max(500, { error: 'must have at most 500 items' }),
              }),
              { error: 'must be an array of {"origin","localStorage"}' },
            )
            .max(50, { error: 'must have at most 50 origins' })
            .optional(),
        },
        { error: 'must be a Playwright storageState object {"cookies","origins"}' },
      )
      .optional()
      .describe(
        "A Playwright storageState (context.storageState()): cookies and localStorage, kept for the session's sites only",
      ),
    cookies: z
      .array(storedCookie, { error: 'must be an array of cookies {"name","value","domain",…}' })
      .min(1, { error: 'must list at least one cookie' })
      .max(300, { error: 'must have at most 300 cookies' })
      .optional()
      .describe('Cookies as browsers export them ({"name","value","domain","path"?,"expires"?})'),
    login: z
      .strictObject(
        {
          url: httpUrl(),
          actions: z
            .array(ActionBody, { error: 'must be an array of actions' })
            .min(1, { error: 'must have at least one step' })
            .max(50, { error: 'must have at most 50 steps' }),
          secrets: z
            .record(
              z.string().regex(/^[A-Za-z0-9_]{1,64}$/, { error: 'must be a name of letters, digits and _' }),
              z.string({ error: 'must be a string' }).max(4096, { error: 'must be at most 4096 characters' }),
              { error: 'must be an object of names and string values' },
            )
            .optional()
            .describe('Values the actions name as {{secret.NAME}}: sealed, never shown again'),
        },
        { error: 'must be an object {"url","actions","secrets"?}' },
      )
      .optional()
      .describe('A login recipe: run in the browser now and again on refresh or when the session expires'),
  })
  .superRefine((b, ctx) => {
    const given = (['storage_state', 'cookies', 'login'] as const).filter((k) => b[k] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: 'custom',
        message: `give exactly one of storage_state, cookies or login (got ${given.length ? given.join(', ') : 'none'})`,
      });
  });
export type SessionCreateBody = z.output<typeof SessionCreateBody>;
