/** The store's one Database interface: a table per interface, row aliases beside it. */
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string | null;
  credits: number;
  signing_secret: string;
  created_at: string;
  /** Highest rate limit a key of this account may have (operator-set; null = the deployment default). */
  rate_limit_ceiling: Generated<number | null>;
  /** The secret before the last rotation, still signing (beside the new one) until `previous_secret_expires_at`. */
  previous_signing_secret: Generated<string | null>;
  previous_secret_expires_at: Generated<string | null>;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string | null;
  /** SHA-256 hex of the key; the key itself is never stored. */
  key_hash: string;
  /** First characters, for display ("trawl_Ab12…"). */
  prefix: string;
  rate_limit_per_minute: number | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface UsageTable {
  id: Generated<number>;
  account_id: string;
  key_id: string | null;
  endpoint: string;
  status: number;
  credits: number;
  duration_ms: number;
  request_id: string;
  created_at: string;
}

export type MonitorState = 'active' | 'paused';
export type MonitorHealth = 'ok' | 'failing';
/** `disabled`: nothing is sent (a 410 Gone, 3 days of failures, or the owner); a PATCH of `webhook` or `webhook_state` re-enables. */
export type WebhookState = 'active' | 'disabled';

/** JSON columns (watch, schema, conditions, last_values) are text holding JSON. */
export interface MonitorsTable {
  id: string;
  account_id: string;
  url: string;
  interval: string;
  interval_seconds: number;
  watch: string;
  webhook: string;
  marketplace: string | null;
  schema: string | null;
  conditions: string | null;
  /** How the page is fetched (actions, headers, cookies, mobile, location) as JSON; null: plainly. */
  scrape_options: Generated<string | null>;
  state: MonitorState;
  health: MonitorHealth;
  consecutive_failures: number;
  /** Watched values of the last successful run: the baseline the next run compares with. */
  last_values: string | null;
  last_success_at: string | null;
  last_run_at: string | null;
  next_run_at: string;
  /** When the observation behind last_values was made: an older one never replaces it. */
  baseline_at: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: string;
  updated_at: string;
  /** Events written for this monitor so far: the next one's `sequence` is this + 1. */
  event_sequence: Generated<number>;
  /** JSON array of the event types sent (change.detected, monitor.failing, monitor.recovered). */
  events: Generated<string>;
  webhook_state: Generated<WebhookState>;
  webhook_disabled_at: Generated<string | null>;
  webhook_disabled_reason: Generated<string | null>;
  /** First failed attempt since the webhook last answered 2xx (null while it answers). */
  webhook_failing_since: Generated<string | null>;
}

export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped';

export interface MonitorRunsTable {
  id: string;
  monitor_id: string;
  account_id: string;
  trigger: 'schedule' | 'manual';
  status: RunStatus;
  due_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** While running: when another process may take the run over (its runner is presumed dead). */
  lease_until: string | null;
  credits: number;
  status_code: number | null;
  values: string | null;
  changes: string | null;
  event_id: string | null;
  error: string | null;
}

export interface WebhookEventsTable {
  id: string;
  monitor_id: string;
  account_id: string;
  run_id: string;
  /** The exact bytes sent (and signed) on every attempt. */
  body: string;
  created_at: string;
}

export type DeliveryState = 'pending' | 'sending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  monitor_id: string;
  account_id: string;
  url: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: string | null;
  lease_until: string | null;
  last_status: number | null;
  last_error: string | null;
  /** The relay handed this attempt to the queue until then; past it, the attempt is handed out again. */
  handed_until: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: string;
  updated_at: string;
  /** `attempts` when the current schedule began (0; a replay starts a new schedule without renumbering attempts). */
  schedule_offset: Generated<number>;
  /** A notification channel's message (sent by the channel's sender); null: the monitor's webhook. */
  channel_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export type ChannelKind = 'email' | 'slack' | 'discord' | 'msteams' | 'telegram' | 'json';

/** A place a person reads notifications; `secret` is sealed (TRAWL_SECRET_KEY), `target` its redacted form. */
export interface NotificationChannelsTable {
  id: string;
  account_id: string;
  name: string;
  kind: ChannelKind;
  target: string;
  secret: string;
  subject_template: string | null;
  body_template: string | null;
  /** Notified of every monitor of the account (1), or only of the monitors it is attached to (0). */
  is_default: number;
  state: WebhookState;
  disabled_at: string | null;
  disabled_reason: string | null;
  failing_since: string | null;
  consecutive_failures: number;
  last_success_at: string | null;
  last_failure_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface MonitorChannelsTable {
  monitor_id: string;
  channel_id: string;
}

export interface DeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempt: number;
  manual: number;
  /** sending → succeeded | failed; `interrupted` when the process died mid-attempt. */
  outcome: 'sending' | 'succeeded' | 'failed' | 'interrupted';
  started_at: string;
  finished_at: string | null;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
  /** Where this attempt went: the monitor's webhook URL at the time of the attempt. */
  url: Generated<string | null>;
}

export interface SessionsTable {
  /** SHA-256 hex of the cookie's token. */
  id: string;
  account_id: string;
  csrf: string;
  created_at: string;
  expires_at: string;
}

/** A saved browser session (issue 44): state and recipe sealed (sealed.ts), never in clear. */
export interface BrowserSessionsTable {
  id: string;
  account_id: string;
  name: string;
  /** JSON array of registrable domains. */
  sites: string;
  state_sealed: string;
  recipe_sealed: string | null;
  status: Generated<'active' | 'expired'>;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
  last_refreshed_at: string | null;
  expired_at: string | null;
  /** When it last logged in again by itself (withBrowserSession), whatever came of it. */
  login_tried_at: Generated<string | null>;
}

/** Unchanged successful runs of one monitor on one UTC day, collapsed by the pruner. */
export interface MonitorRunCountsTable {
  monitor_id: string;
  account_id: string;
  /** YYYY-MM-DD (UTC) of the runs' due time. */
  day: string;
  unchanged_runs: number;
  credits: number;
}

/** Usage rows older than a day, summed per account, key ('' = none), endpoint, status and UTC hour. */
export interface UsageHourlyTable {
  account_id: string;
  key_id: string;
  endpoint: string;
  status: number;
  /** YYYY-MM-DDTHH:00:00.000Z */
  hour: string;
  requests: number;
  credits: number;
  errors: number;
  duration_ms: number;
}

/** A large watched value stored once: body is its JSON, hash the SHA-256 hex of that JSON. */
export interface SnapshotsTable {
  hash: string;
  body: string;
  bytes: number;
  created_at: string;
  stored_at: string;
}

export interface SnapshotRefsTable {
  run_id: string;
  hash: string;
}

export type JobState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface JobsTable {
  id: string;
  account_id: string;
  kind: 'crawl' | 'batch';
  state: JobState;
  /** The request's options (JSON): what each page is fetched and processed with. */
  options: string;
  /** Items admitted (URLs to do). */
  total: Generated<number>;
  done: Generated<number>;
  failed: Generated<number>;
  /** Pages written so far: the next page's number (completion order, the cursor). */
  written: Generated<number>;
  /** Items a job may admit in all (a crawl's page limit; a batch's URL count). */
  max_items: number;
  /** The next item's seq (candidates take numbers even when they turn out to be seen already). */
  seq_next: Generated<number>;
  /** 1 once the page limit left links a crawl found unfetched. */
  truncated: Generated<number>;
  /** URLs a crawl found and left out (its page limit; links past the most one page may add). */
  not_fetched: Generated<number>;
  /** 1 while a synchronous crawl's answer is not yet charged: its pages are not readable from the jobs API. */
  held: Generated<number>;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Where the job's events go (null: none), and the opt-in ones (JSON array, e.g. ["job.page"]). */
  webhook: string | null;
  webhook_events: string | null;
}

export interface JobItemsTable {
  job_id: string;
  seq: number;
  url: string;
  depth: Generated<number>;
  /** `cut`: found past a crawl's limit, never fetched (kept so it is counted once in `not_fetched`). */
  state: 'queued' | 'running' | 'done' | 'failed' | 'cancelled' | 'cut';
  lease_until: string | null;
  attempts: Generated<number>;
}

export interface JobPagesTable {
  job_id: string;
  n: number;
  seq: number;
  /** The page as answered (JSON), `error` set for a failed one. */
  page: string;
  created_at: string;
}

/** A job's event (job.page, job.completed) and its delivery: the jobs' outbox. */
export interface JobEventsTable {
  id: string;
  job_id: string;
  account_id: string;
  /** job.page, job.completed — or, for a Firecrawl-shaped webhook, crawl.page, batch_scrape.completed … */
  event: string;
  body: string;
  /** The caller's own headers sent with it (JSON object), if any. */
  headers: string | null;
  state: 'pending' | 'sending' | 'succeeded' | 'failed';
  /** Attempts made (claimed); an attempt whose sender died counts. */
  attempts: Generated<number>;
  /** Attempts made before the last replay: the retry schedule counts from there. */
  schedule_offset: Generated<number>;
  next_attempt_at: string | null;
  lease_until: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** Screenshots (contract section 9): served at /v1/files/{id}.{ext} until `expires_at`. */
export interface FilesTable {
  /** 32 base62 characters (190 bits): the URL is the only key to it. */
  id: string;
  account_id: string | null;
  content_type: string;
  bytes: number;
  /** The bytes of a row made before the file store ('db'); empty for the file store's. */
  body: Buffer;
  created_at: string;
  expires_at: string;
  /** Where the bytes are: 'disk' (the file store) or 'db' (`body`, rows made before it). */
  storage: Generated<'disk' | 'db'>;
}

/** Scrape results by the hash of URL and options (`max_age`). */
export interface ResultCacheTable {
  key: string;
  /** The account whose request made it (the key holds whether it is private to it). */
  account_id: string | null;
  /** The result as JSON. */
  body: string;
  bytes: number;
  created_at: string;
  /** When its files are gone (null: no files); a later read misses. */
  expires_at: string | null;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  usage: UsageTable;
  monitors: MonitorsTable;
  monitor_runs: MonitorRunsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  notification_channels: NotificationChannelsTable;
  monitor_channels: MonitorChannelsTable;
  delivery_attempts: DeliveryAttemptsTable;
  sessions: SessionsTable;
  browser_sessions: BrowserSessionsTable;
  monitor_run_counts: MonitorRunCountsTable;
  usage_hourly: UsageHourlyTable;
  snapshots: SnapshotsTable;
  snapshot_refs: SnapshotRefsTable;
  jobs: JobsTable;
  job_items: JobItemsTable;
  job_pages: JobPagesTable;
  job_events: JobEventsTable;
  files: FilesTable;
  result_cache: ResultCacheTable;
}

export type Account = Selectable<AccountsTable>;
export type NotificationChannel = Selectable<NotificationChannelsTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type NewUsage = Insertable<UsageTable>;
export type Monitor = Selectable<MonitorsTable>;
export type MonitorRun = Selectable<MonitorRunsTable>;
export type Job = Selectable<JobsTable>;
export type BrowserSession = Selectable<BrowserSessionsTable>;
export type JobEvent = Selectable<JobEventsTable>;
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
export type DeliveryAttempt = Selectable<DeliveryAttemptsTable>;
