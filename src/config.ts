/**
 * Configuration, read once from the environment (and `.env`) into a typed object. Each
 * setting is declared once here with its default; modules receive the slice they need and
 * never read `process.env` themselves. Names are the contract's (API.md section 6).
 */
import { totalmem } from 'node:os';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
// A setting out of bounds is the operator's to fix: a one-line error, not a stack trace.
import { invalidRequest } from './errors.js';

export interface ResolveOverride {
  host: string;
  address: string;
  port?: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  redisUrl?: string;
  /** Key prefix of the BullMQ queues on Redis (several deployments can share one Redis). */
  queuePrefix: string;
  allowPrivateNetwork: boolean;
  minIntervalSeconds: number;
  /** First retry delay of a webhook delivery; the whole schedule (5 s … 10 h) scales with it (step × base / 5000). */
  webhookRetryBaseMs: number;
  webhookMaxAttempts: number;
  /** How long a rotated-out signing secret keeps signing beside the new one. */
  webhookSecretOverlapHours: number;
  /** A monitor's webhook failing this long without a 2xx is disabled. */
  webhookDisableAfterHours: number;
  /** Default rate limit of a key, and default ceiling of an account's keys (operator-set per account). */
  rateLimitPerMinute: number;
  /** Pages one account fetches at once (scrapes, crawls, extracts, monitor runs), and its open monitor runs, so its backlog cannot starve others. */
  accountConcurrency: number;
  /** Monitors one account may have at once. */
  maxMonitorsPerAccount: number;
  /** Days runs that changed or failed, webhook events, deliveries and attempts are kept (unchanged runs are counted after a day). */
  runRetentionDays: number;
  /** Ended jobs' pages are kept this long, then deleted. */
  jobRetentionHours: number;
  /** Screenshots are served this long after they were taken, then deleted. */
  fileRetentionHours: number;
  /** Where screenshots' bytes are kept (a folder; scale-out: one all processes share). */
  filesDir: string;
  /** Bytes one screenshot may take; a larger picture is taken again, scaled down. */
  screenshotMaxBytes: number;
  /** Bytes of files one account may hold; past it its oldest files are deleted. */
  filesMaxBytesPerAccount: number;
  /** Bytes the scrape result cache (`max_age`) may hold; the oldest entries go first. */
  cacheMaxBytes: number;
  /** The service's address as its clients reach it (screenshot URLs); unset: the address each request came to. */
  publicUrl?: string;
  /** Most time a client may take to send a request's headers and body (then 408). */
  requestTimeoutMs: number;
  /** Connections one client address may hold open at once (0 = no cap, e.g. behind a proxy). */
  maxConnectionsPerIp: number;
  /** PostgreSQL connections per process (unset: 10 for `trawl serve`, 24 for `trawl worker`, whose handlers write more). */
  dbPoolSize?: number;
  /** Credits a dashboard sign-up starts with. */
  signupCredits: number;
  chromiumPath?: string;
  /** Worker threads for the document pipeline (0 = inline; unset = two for every three cores, at most 4, none on one core). */
  documentWorkers?: number;
  /** Most time one page may spend in the document pipeline (parse, markdown, extraction). */
  documentBudgetMs: number;
  /** What one PDF's streams may inflate to, in bytes (TRAWL_PDF_MAX_INFLATED_MB). */
  pdfMaxInflatedBytes: number;
  /** Worker threads that parse and validate request bodies over 1 MiB (0 = on the event loop). */
  bodyWorkers: number;
  /** Bytes one answer may hold (a render's snapshots, a crawl's pages, any result); more is a clear error, not charged. */
  answerMaxBytes: number;
  /** Large pages (over 1 MiB) handled at once; more wait within their deadline. */
  largePages: number;
  /** Page body bytes held at once (downloading or waiting to be processed) before new pages wait. */
  pageBytesBudget: number;
  searchProvider?: string;
  searxngUrl?: string;
  braveApiKey?: string;
  /** Brave Search API endpoint (tests and proxies). */
  braveApiUrl?: string;
  /** DuckDuckGo HTML endpoint (tests and proxies). */
  duckduckgoUrl?: string;
  llmBaseUrl?: string;
  llmApiKey?: string;
  llmModel?: string;
  metaAccessToken?: string;
  metaAdLibraryBaseUrl: string;
  metaGraphBaseUrl: string;
  /** First wait after Meta's rate-limit answer (doubles, within the request's budget). */
  metaRetryBaseMs: number;
  proxyUrls: string[];
  /** Stealth-tier proxies (TRAWL_STEALTH_PROXY_URLS): residential/mobile exits for `proxy: "stealth" | "auto"` (issue 42). */
  stealthProxyUrls: string[];
  /** Appended to the Chrome User-Agent (TRAWL_USER_AGENT_TOKEN); none by default. */
  userAgentToken?: string;
  /** A remote browser over CDP (TRAWL_BROWSER_WS_ENDPOINT or TRAWL_BROWSER_CDP_URL) instead of the local Chromium. */
  browserEndpoint?: string;
  resolve: ResolveOverride[];
  logLevel: string;
  /** When set, GET /metrics needs `Authorization: Bearer <this>`; unset, /metrics is open to whoever reaches the port. */
  metricsToken?: string;
  /** Where a `trawl worker` serves its own /metrics and /healthz (unset: it serves none). */
  workerMetricsPort?: number;
  /** Seals secrets at rest (browser sessions, notification channels); unset: they cannot be stored. */
  secretKey?: string;
  /** Keys of before a rotation, still opening what they sealed (TRAWL_SECRET_KEY_PREVIOUS, comma-separated). */
  secretKeyPrevious: string[];
  /** The operator's SMTP server for email channels, `smtp://user:pass@host:587` (TRAWL_SMTP_URL); unset: no email. */
  smtpUrl?: string;
  /** The From of notification emails (TRAWL_SMTP_FROM). */
  smtpFrom?: string;
  /** Telegram's Bot API base (TRAWL_TELEGRAM_API_URL; tests point it at a stand-in). */
  telegramApiUrl: string;
}

type Env = Record<string, string | undefined>;

/** Environment with `.env` (in the working directory) filled in under real variables. */
export function loadEnv(env: Env = process.env, cwd = process.cwd()): Env {
  const file = resolve(cwd, '.env');
  if (!existsSync(file)) return env;
  return { ...parseDotenv(readFileSync(file)), ...env };
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw invalidRequest(`${name}: must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return n;
}

const flag = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());
const str = (v: string | undefined) => (v && v.trim() ? v.trim() : undefined);

/** `host=ip:port,host2=ip` → overrides, like curl's --connect-to. */
export function parseResolve(raw: string | undefined): ResolveOverride[] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^([^=\s]+)=(\[[^\]]+\]|[^:\s]+)(?::(\d{1,5}))?$/.exec(entry);
      if (!m) throw invalidRequest(`TRAWL_RESOLVE: "${entry}" is not host=ip[:port]`);
      return { host: m[1].toLowerCase(), address: m[2].replace(/^\[|\]$/g, ''), port: m[3] ? Number(m[3]) : undefined };
    });
}

/** An http(s) base URL without a trailing slash, or unset. */
function smtpUrl(raw: string | undefined): string | undefined {
  const v = raw?.trim();
  if (!v) return undefined;
  if (!/^smtps?:\/\/[^/]/i.test(v))
    throw new Error('TRAWL_SMTP_URL: must be smtp://user:password@host:587 or smtps://… (the password URL-encoded)');
  return v;
}

function publicUrl(raw: string | undefined): string | undefined {
  const v = str(raw);
  if (!v) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new Error(`TRAWL_PUBLIC_URL: "${v}" is not a URL (e.g. https://trawl.example.com)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new Error(`TRAWL_PUBLIC_URL: must be an http or https URL (got "${v}")`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

export function loadConfig(env: Env = loadEnv()): Config {
  const dataDir = resolve(str(env.TRAWL_DATA_DIR) ?? './data');
  const screenshotMaxBytes = int(env, 'TRAWL_SCREENSHOT_MAX_MB', 10, 1, 100) * 2 ** 20;
  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    host: str(env.HOST) ?? '127.0.0.1',
    dataDir,
    databaseUrl: str(env.DATABASE_URL),
    redisUrl: str(env.REDIS_URL),
    queuePrefix: str(env.TRAWL_QUEUE_PREFIX) ?? 'trawl',
    allowPrivateNetwork: flag(env.TRAWL_ALLOW_PRIVATE_NETWORK),
    minIntervalSeconds: int(env, 'TRAWL_MIN_INTERVAL_SECONDS', 60, 1, 86_400),
    webhookRetryBaseMs: int(env, 'TRAWL_WEBHOOK_RETRY_BASE_MS', 5_000, 1, 3_600_000),
    webhookMaxAttempts: int(env, 'TRAWL_WEBHOOK_MAX_ATTEMPTS', 8, 1, 50),
    webhookSecretOverlapHours: int(env, 'TRAWL_WEBHOOK_SECRET_OVERLAP_HOURS', 24, 0, 720),
    webhookDisableAfterHours: int(env, 'TRAWL_WEBHOOK_DISABLE_AFTER_HOURS', 72, 1, 8_760),
    rateLimitPerMinute: int(env, 'TRAWL_RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    accountConcurrency: int(env, 'TRAWL_ACCOUNT_CONCURRENCY', 8, 1, 10_000),
    maxMonitorsPerAccount: int(env, 'TRAWL_MAX_MONITORS_PER_ACCOUNT', 1000, 1, 1_000_000),
    runRetentionDays: int(env, 'TRAWL_RUN_RETENTION_DAYS', 30, 1, 3650),
    jobRetentionHours: int(env, 'TRAWL_JOB_RETENTION_HOURS', 72, 1, 87_600),
    fileRetentionHours: int(env, 'TRAWL_FILE_RETENTION_HOURS', 24, 1, 8_760),
    filesDir: resolve(str(env.TRAWL_FILES_DIR) ?? resolve(dataDir, 'files')),
    screenshotMaxBytes,
    // At least one screenshot's worth: an account always keeps its newest file.
    filesMaxBytesPerAccount:
      int(env, 'TRAWL_FILES_MAX_MB_PER_ACCOUNT', 1024, Math.ceil(screenshotMaxBytes / 2 ** 20), 1_048_576) * 2 ** 20,
    cacheMaxBytes: int(env, 'TRAWL_CACHE_MAX_MB', 512, 1, 1_048_576) * 2 ** 20,
    publicUrl: publicUrl(env.TRAWL_PUBLIC_URL),
    requestTimeoutMs: int(env, 'TRAWL_REQUEST_TIMEOUT_MS', 30_000, 100, 300_000),
    maxConnectionsPerIp: int(env, 'TRAWL_MAX_CONNECTIONS_PER_IP', 64, 0, 1_000_000),
    dbPoolSize: env.TRAWL_DB_POOL_SIZE ? int(env, 'TRAWL_DB_POOL_SIZE', 10, 1, 500) : undefined,
    signupCredits: int(env, 'TRAWL_SIGNUP_CREDITS', 100, 0, 1_000_000_000),
    chromiumPath: str(env.CHROMIUM_PATH),
    documentWorkers:
      str(env.TRAWL_DOCUMENT_WORKERS) === undefined ? undefined : int(env, 'TRAWL_DOCUMENT_WORKERS', 0, 0, 64),
    documentBudgetMs: int(env, 'TRAWL_DOCUMENT_BUDGET_MS', 10_000, 100, 120_000),
    // (The default is pdf.ts's DEFAULT_MAX_INFLATED_BYTES: 128 MiB.)
    pdfMaxInflatedBytes: int(env, 'TRAWL_PDF_MAX_INFLATED_MB', 128, 1, 65_536) * 2 ** 20,
    bodyWorkers: int(env, 'TRAWL_BODY_WORKERS', 1, 0, 16),
    answerMaxBytes: int(env, 'TRAWL_ANSWER_MAX_MB', 32, 1, 4096) * 2 ** 20,
    // A large page costs ~50–100 MB while it is handled: one per 8 GiB of memory, 2 to 8.
    largePages: int(env, 'TRAWL_LARGE_PAGES', Math.max(2, Math.min(8, Math.floor(totalmem() / 2 ** 33))), 1, 256),
    // Bytes held are ~3× in memory (body, text, the worker's copy): 1/64 of memory, 64–512 MiB.
    pageBytesBudget:
      int(env, 'TRAWL_PAGE_BYTES_MB', Math.max(64, Math.min(512, Math.floor(totalmem() / 2 ** 26))), 8, 65_536) *
      2 ** 20,
    searchProvider: str(env.SEARCH_PROVIDER),
    searxngUrl: str(env.SEARXNG_URL),
    braveApiKey: str(env.BRAVE_API_KEY),
    braveApiUrl: str(env.BRAVE_API_URL),
    duckduckgoUrl: str(env.DUCKDUCKGO_URL),
    llmBaseUrl: str(env.LLM_BASE_URL),
    llmApiKey: str(env.LLM_API_KEY),
    llmModel: str(env.LLM_MODEL),
    metaAccessToken: str(env.META_ACCESS_TOKEN),
    metaAdLibraryBaseUrl: str(env.META_AD_LIBRARY_BASE_URL) ?? 'https://www.facebook.com',
    metaGraphBaseUrl: str(env.META_GRAPH_BASE_URL) ?? 'https://graph.facebook.com',
    metaRetryBaseMs: int(env, 'TRAWL_META_RETRY_BASE_MS', 2000, 1, 60_000),
    proxyUrls: (env.HTTP_PROXY_URLS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    stealthProxyUrls: (env.TRAWL_STEALTH_PROXY_URLS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    userAgentToken: str(env.TRAWL_USER_AGENT_TOKEN),
    browserEndpoint: str(env.TRAWL_BROWSER_WS_ENDPOINT) ?? str(env.TRAWL_BROWSER_CDP_URL),
    resolve: parseResolve(env.TRAWL_RESOLVE),
    logLevel: str(env.LOG_LEVEL) ?? 'info',
    metricsToken: str(env.TRAWL_METRICS_TOKEN),
    workerMetricsPort:
      str(env.TRAWL_WORKER_METRICS_PORT) === undefined ? undefined : int(env, 'TRAWL_WORKER_METRICS_PORT', 0, 0, 65535),
    secretKey: str(env.TRAWL_SECRET_KEY),
    secretKeyPrevious: (env.TRAWL_SECRET_KEY_PREVIOUS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    smtpUrl: smtpUrl(env.TRAWL_SMTP_URL),
    smtpFrom: str(env.TRAWL_SMTP_FROM),
    telegramApiUrl: str(env.TRAWL_TELEGRAM_API_URL) ?? 'https://api.telegram.org',
  };
}

/** What webhook deliveries need of the configuration (the scheduler, redeliver). */
export const deliveryConfig = (config: Config) => ({
  retryBaseMs: config.webhookRetryBaseMs,
  maxAttempts: config.webhookMaxAttempts,
  disableAfterMs: config.webhookDisableAfterHours * 3600_000,
});

/** The slice the Ad Library client needs (meta-ads, and monitors on an advertiser). */
export const metaConfig = (config: Config) => ({
  libraryBaseUrl: config.metaAdLibraryBaseUrl,
  graphBaseUrl: config.metaGraphBaseUrl,
  accessToken: config.metaAccessToken,
  retryBaseMs: config.metaRetryBaseMs,
});
