/**
 * The `trawl` command. `--json` makes every command print exactly one JSON object on
 * stdout (and nothing else there); errors then are `{"error","detail"}` with exit code 1.
 */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { ERROR_CATALOGUE, TrawlError, isTrawlError, type ErrorCode } from '../errors.js';
import type { Format } from '../engine/index.js';
import { progressBar } from './progress.js';
import { stopOnSignals } from './shutdown.js';
import { fileWriter, formatOfFile, parseAction, parseCookie, parseHeader, parseViewport } from './scrape-options.js';
import { configSecrets, createRedactor, type Redactor } from '../redact.js';
import type { Store } from '../store/index.js';

// Each command loads what it needs when it runs (`await import`): an admin command such as
// `keys list` needs the store, not the engine, the server, Chromium's driver or the MCP SDK,
// whose imports took most of its time (issue 43).
let S: typeof import('../store/index.js');
const loadStore = async () => (S ??= await import('../store/index.js'));

const program = new Command();
program
  .name('trawl')
  .description('Trawl: web data extraction API')
  .option('--json', 'print one JSON object on stdout', false);

const json = () => program.opts().json as boolean;

function print(obj: Record<string, unknown>, human: string): void {
  process.stdout.write(json() ? `${JSON.stringify(obj)}\n` : `${human}\n`);
}

async function withStore<T>(fn: (store: Store, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const { openStore } = await loadStore();
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    filesDir: config.filesDir,
  });
  try {
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

async function accountByEmail(store: Store, email: string) {
  const row = await S.accounts.findAccountByEmail(store.db, email);
  if (!row)
    throw new TrawlError(
      'not_found',
      `no account with email ${email}; create it with: trawl account create --email ${email}`,
    );
  return row;
}

const positiveInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new TrawlError('invalid_request', `${name}: must be a whole number ≥ 0 (got "${v}")`);
  return n;
};

program
  .command('serve')
  .description(
    'start the API and the dashboard (SQLite under ./data and the in-process scheduler unless DATABASE_URL / REDIS_URL are set)',
  )
  .option('--port <n>', 'port to listen on (default: PORT, else 3000; 0: any free port)', positiveInt('port'))
  .option('--host <address>', 'address to listen on (default: HOST, else 127.0.0.1; 0.0.0.0 for every interface)')
  .option('--log-level <level>', 'log level: debug shows one line per request (default: LOG_LEVEL, else info)')
  .action(async (o: { port?: number; host?: string; logLevel?: string }) => {
    if (o.port !== undefined && o.port > 65535)
      throw new TrawlError('invalid_request', `port: must be from 0 to 65535 (got ${o.port})`);
    const config = {
      ...loadConfig(),
      ...(o.port !== undefined ? { port: o.port } : {}),
      ...(o.host ? { host: o.host } : {}),
      ...(o.logLevel ? { logLevel: o.logLevel } : {}),
    };
    const [{ startService }, { loggerOptions }, { startupBanner }] = await Promise.all([
      import('../runtime.js'),
      import('../server/ops/logging.js'),
      import('../server/ops/banner.js'),
    ]);
    // Readable logs on a terminal; JSON lines when stdout is a file or a pipe (and with --json, whose stdout is for machines).
    const service = await startService(config, {
      logger: loggerOptions({ level: config.logLevel, pretty: !json() && !!process.stdout.isTTY }),
    });
    // Handlers first: a signal sent as soon as the listening line is read must stop it gracefully.
    stopOnSignals(() => service.close());
    if (json()) print({ status: 'listening', url: service.url }, '');
    if (process.stderr.isTTY) process.stderr.write(startupBanner({ url: service.url, config }));
  });

program
  .command('worker')
  .description(
    'consume monitor runs and webhook deliveries from Redis (needs DATABASE_URL and REDIS_URL); run as many as you like',
  )
  .action(async () => {
    const config = loadConfig();
    const [{ startWorker }, { loggerOptions }, { pino }] = await Promise.all([
      import('../runtime.js'),
      import('../server/ops/logging.js'),
      import('pino'),
    ]);
    const { level, stream } = loggerOptions({ level: config.logLevel, pretty: !json() && !!process.stdout.isTTY });
    const options = { level, hooks: { streamWrite: createRedactor(configSecrets(config)) } };
    const log = stream ? pino(options, stream) : pino(options);
    const worker = await startWorker(config, log);
    stopOnSignals(() => worker.close());
    log.info({ pid: process.pid }, 'worker started');
    if (json()) print({ status: 'working', pid: process.pid }, '');
  });

const account = program.command('account').description('manage accounts');
account
  .command('create')
  .requiredOption('--email <email>', 'account email')
  .option('--password <password>', 'password to log in to the dashboard (8 to 200 characters)')
  .option('--credits <n>', 'starting credits', positiveInt('credits'), 0)
  .action(async (o: { email: string; password?: string; credits: number }) => {
    if (!/^[^\s@]+@[^\s@]+$/.test(o.email))
      throw new TrawlError('invalid_request', `email: "${o.email}" is not an email address`);
    if (o.password !== undefined && (o.password.length < 8 || o.password.length > 200))
      throw new TrawlError('invalid_request', 'password: must be 8 to 200 characters');
    await withStore(async (store) => {
      if (await S.accounts.findAccountByEmail(store.db, o.email))
        throw new TrawlError('invalid_request', `email: an account with ${o.email} already exists`);
      const row = await S.accounts.createAccount(store.db, {
        email: o.email,
        password: o.password,
        credits: o.credits,
      });
      print(
        { account_id: row.id, email: row.email, credits: row.credits },
        `created account ${row.id} (${row.email}) with ${row.credits} credits`,
      );
    });
  });

account
  .command('password')
  .description('set or reset the dashboard password of an account (ends its sessions)')
  .requiredOption('--email <email>', 'account email')
  .requiredOption('--password <password>', 'the new password (8 to 200 characters)')
  .action(async (o: { email: string; password: string }) => {
    if (o.password.length < 8 || o.password.length > 200)
      throw new TrawlError('invalid_request', 'password: must be 8 to 200 characters');
    await withStore(async (store) => {
      const row = await accountByEmail(store, o.email);
      await S.accounts.setPasswordHash(store.db, row.id, await S.hashPassword(o.password));
      await S.sessions.endAllSessions(store.db, row.id);
      print(
        { account_id: row.id, email: row.email },
        `password set for ${row.email}; its dashboard sessions were ended`,
      );
    });
  });

account
  .command('limits')
  .description("set the highest rate limit (requests per minute) the account's keys may have; users cannot go above it")
  .requiredOption('--email <email>', 'account email')
  .requiredOption(
    '--rate-limit-ceiling <perMinute|default>',
    'the ceiling, or "default" for TRAWL_RATE_LIMIT_PER_MINUTE',
  )
  .action(async (o: { email: string; rateLimitCeiling: string }) => {
    const ceiling = o.rateLimitCeiling === 'default' ? null : positiveInt('rate-limit-ceiling')(o.rateLimitCeiling);
    if (ceiling === 0) throw new TrawlError('invalid_request', 'rate-limit-ceiling: must be at least 1 (or "default")');
    await withStore(async (store, config) => {
      const acc = await accountByEmail(store, o.email);
      await S.accounts.setRateLimitCeiling(store.db, acc.id, ceiling);
      const effective = ceiling ?? config.rateLimitPerMinute;
      const above = await S.accounts.countKeysAbove(store.db, acc.id, effective);
      print(
        { account_id: acc.id, rate_limit_ceiling: effective, keys_above_ceiling: above },
        `${acc.email}: keys may make at most ${effective} requests per minute` +
          (above ? ` (${above} key${above > 1 ? 's' : ''} set higher now run at ${effective})` : ''),
      );
    });
  });

const keysCmd = program.command('keys').description('manage API keys');

keysCmd
  .command('list')
  .description("an account's keys: id, prefix, name, rate limit, created, last used, revoked (never the key itself)")
  .requiredOption('--email <email>', 'account email')
  .action(async (o: { email: string }) => {
    await withStore(async (store) => {
      const acc = await accountByEmail(store, o.email);
      const rows = await S.keys.listKeys(store.db, acc.id);
      const list = rows.map((r) => ({
        key_id: r.id,
        prefix: r.prefix,
        name: r.name,
        rate_limit_per_minute: r.rate_limit_per_minute,
        created_at: r.created_at,
        last_used_at: r.last_used_at,
        revoked_at: r.revoked_at,
      }));
      const human = list.length
        ? list
            .map(
              (k) =>
                `${k.key_id}  ${k.prefix}  ${k.revoked_at ? `revoked ${k.revoked_at.slice(0, 10)}` : 'active'}  created ${k.created_at.slice(0, 10)}  last used ${k.last_used_at?.slice(0, 10) ?? 'never'}${k.name ? `  ${k.name}` : ''}`,
            )
            .join('\n')
        : `${acc.email} has no keys; create one with: trawl keys create --email ${acc.email}`;
      print({ account_id: acc.id, keys: list }, human);
    });
  });

keysCmd
  .command('revoke')
  .description('revoke a key by its id (key_…) or the start of the key (trawl_…, as keys list shows it)')
  .requiredOption('--email <email>', 'account email')
  .argument('<key>', 'key id, or the key / its prefix')
  .action(async (which: string, o: { email: string }) => {
    await withStore(async (store) => {
      const acc = await accountByEmail(store, o.email);
      const rows = await S.keys.listKeys(store.db, acc.id);
      const start = which.replace(/…$/, '');
      const found = rows.filter(
        (r) => r.id === which || (start.length >= 8 && start.startsWith('trawl_') && matchesPrefix(r.prefix, start)),
      );
      if (!found.length)
        throw new TrawlError(
          'not_found',
          `no key of ${acc.email} is ${which.slice(0, 20)}; trawl keys list --email ${acc.email} shows their ids and prefixes`,
        );
      if (found.length > 1)
        throw new TrawlError(
          'invalid_request',
          `${which.slice(0, 20)} names ${found.length} keys (${found.map((r) => r.id).join(', ')}); give the key id`,
        );
      const key = found[0];
      if (key.revoked_at) {
        print(
          { key_id: key.id, revoked_at: key.revoked_at },
          `${key.id} (${key.prefix}) was already revoked on ${key.revoked_at}`,
        );
        return;
      }
      await S.keys.revokeKey(store.db, acc.id, key.id);
      const after = (await S.keys.listKeys(store.db, acc.id)).find((r) => r.id === key.id);
      print(
        { key_id: key.id, revoked_at: after?.revoked_at ?? null },
        `revoked ${key.id} (${key.prefix}); requests with it now get 401`,
      );
    });
  });

/** Whether a key's stored display prefix ("trawl_AbCdEf…") and what the caller typed (a prefix or the whole key) agree. */
function matchesPrefix(stored: string, typed: string): boolean {
  const p = stored.replace(/…$/, '');
  return typed.startsWith(p) || p.startsWith(typed);
}

keysCmd
  .command('create')
  .requiredOption('--email <email>', 'account email')
  .option('--name <name>', 'a name to recognise the key by')
  .option('--rate-limit <perMinute>', 'requests per minute for this key', positiveInt('rate-limit'))
  .action(async (o: { email: string; name?: string; rateLimit?: number }) => {
    if (o.rateLimit !== undefined && o.rateLimit < 1)
      throw new TrawlError('invalid_request', 'rate-limit: must be at least 1');
    await withStore(async (store, config) => {
      const acc = await accountByEmail(store, o.email);
      const ceiling = S.accounts.rateLimitCeiling(acc, config.rateLimitPerMinute);
      if (o.rateLimit !== undefined && o.rateLimit > ceiling) {
        throw new TrawlError(
          'invalid_request',
          `rate-limit: above this account's ceiling of ${ceiling} per minute; raise it first with: trawl account limits --email ${acc.email} --rate-limit-ceiling ${o.rateLimit}`,
        );
      }
      const { key, row } = await S.keys.createApiKey(store.db, {
        accountId: acc.id,
        name: o.name,
        rateLimitPerMinute: o.rateLimit,
      });
      print({ key, key_id: row.id }, `${key}\n(key ${row.id}; shown once, store it now)`);
    });
  });

program
  .command('credits')
  .description('manage credits')
  .command('add')
  .requiredOption('--email <email>', 'account email')
  .argument('<n>', 'credits to add', positiveInt('n'))
  .action(async (n: number, o: { email: string }) => {
    await withStore(async (store) => {
      const acc = await accountByEmail(store, o.email);
      const credits = await S.accounts.addCredits(store.db, acc.id, n);
      print({ credits }, `${acc.email} now has ${credits} credits`);
    });
  });

const secret = program.command('secret').description('the webhook signing secret');
secret
  .command('show')
  .requiredOption('--email <email>', 'account email')
  .action(async (o: { email: string }) => {
    await withStore(async (store) => {
      const acc = await accountByEmail(store, o.email);
      print({ signing_secret: acc.signing_secret }, acc.signing_secret);
    });
  });
secret
  .command('rotate')
  .requiredOption('--email <email>', 'account email')
  .action(async (o: { email: string }) => {
    await withStore(async (store, config) => {
      const acc = await accountByEmail(store, o.email);
      const overlapMs = config.webhookSecretOverlapHours * 3600_000;
      const s = await S.accounts.rotateSigningSecret(store.db, acc.id, overlapMs);
      const until = overlapMs > 0 ? new Date(Date.now() + overlapMs).toISOString() : null;
      print(
        { signing_secret: s, previous_valid_until: until },
        until ? `${s}\n(the previous secret still signs beside it until ${until})` : s,
      );
    });
  });

const list = (v: string, prev: string[] = []) => [...prev, v];

program
  .command('scrape')
  .description('scrape one URL locally (no server needed)')
  .argument('<url>')
  .addOption(
    new Option('--format <format>', 'output format')
      .choices(['markdown', 'json', 'html', 'raw_html', 'links'])
      .default('markdown'),
  )
  .option('--schema <file>', 'JSON file with a schema object (implies --format json)')
  .option('--all-content', 'keep navigation and page chrome (only_main_content=false)')
  .addOption(new Option('--render <mode>', 'how to fetch').choices(['auto', 'http', 'browser']).default('auto'))
  .option('--timeout-ms <ms>', 'time budget', positiveInt('timeout-ms'), 30_000)
  .option(
    '--screenshot <file>',
    'write a screenshot of the page to this file (.png, or .jpg for JPEG); implies the browser',
  )
  .option('--full-page', 'with --screenshot: the whole page (up to 16,384 px high), not only the viewport')
  .option(
    '--action <step>',
    'a browser step, in order (repeatable): wait:500, wait:#list, click:#more, click-all:.expand, write:text, press:Enter, scroll:down[:px], scroll:bottom, screenshot[:full], scrape, js:return document.title, or a JSON step',
    list,
  )
  .option('--header <header>', '"Name: value" sent to the target\'s own site (repeatable)', list)
  .option('--cookie <cookie>', '"name=value" sent to the target\'s host (repeatable)', list)
  .option('--mobile', 'a phone: mobile user agent, 412x915 viewport, touch')
  .option('--viewport <size>', 'browser viewport, e.g. 1280x800')
  .option('--country <code>', 'ISO country code: the time zone and, without --language, the language (e.g. DE)')
  .option('--language <tag>', 'a preferred language, e.g. de-DE (repeatable, in order)', list)
  .action(async (url: string, o: ScrapeFlags) => {
    let schemaRaw: unknown;
    if (o.schema) {
      try {
        schemaRaw = JSON.parse(readFileSync(o.schema, 'utf8'));
      } catch (e) {
        throw new TrawlError(
          'invalid_schema',
          `schema: ${o.schema} is not a readable JSON file (${(e as Error).message})`,
        );
      }
    }
    const [
      { FREE_STEALTH, compileSchema, createEngine, scrape },
      { ScrapeBody },
      { parseBody },
      { checkPageOptions, engineScrapeOptions },
    ] = await Promise.all([
      import('../engine/index.js'),
      import('../contract/schemas.js'),
      import('../contract/validation.js'),
      import('../contract/page-options.js'),
    ]);
    const format: Format = o.schema ? 'json' : o.format;
    const shot = o.screenshot ? (o.fullPage ? 'screenshot@full_page' : 'screenshot') : undefined;
    // The same body, shapes and checks as POST /v1/scrape.
    const body = parseBody(ScrapeBody, {
      url,
      formats: [format, ...(shot ? [shot] : [])],
      ...(schemaRaw !== undefined ? { schema: schemaRaw } : {}),
      only_main_content: !o.allContent,
      render: o.render === 'auto' ? undefined : o.render,
      timeout_ms: o.timeoutMs,
      ...(o.screenshot ? { screenshot_format: formatOfFile(o.screenshot) } : {}),
      ...(o.action?.length ? { actions: o.action.map(parseAction) } : {}),
      ...(o.header?.length ? { headers: Object.fromEntries(o.header.map(parseHeader)) } : {}),
      ...(o.cookie?.length ? { cookies: o.cookie.map(parseCookie) } : {}),
      ...(o.mobile ? { mobile: true } : {}),
      ...(o.viewport ? { viewport: parseViewport(o.viewport) } : {}),
      ...(o.country || o.language?.length
        ? {
            location: {
              ...(o.country ? { country: o.country } : {}),
              ...(o.language?.length ? { languages: o.language } : {}),
            },
          }
        : {}),
    });
    checkPageOptions(body);
    const schema = schemaRaw !== undefined ? compileSchema(schemaRaw) : undefined;
    const engine = createEngine(loadConfig());
    try {
      const r = await scrape(engine, {
        ...engineScrapeOptions({ ...body, schema }),
        render: o.render,
        files: fileWriter(o.screenshot, !!shot),
        // The operator's own scrape: the stealth tier costs no credit here.
        stealthGate: FREE_STEALTH,
      });
      const { url: finalUrl, metadata, ...content } = r;
      // Warnings go to stderr so the markdown on stdout stays clean for pipes.
      for (const w of r.warnings ?? []) process.stderr.write(`warning: ${w}\n`);
      if (!json()) {
        if (r.screenshot) process.stderr.write(`screenshot: ${r.screenshot}\n`);
        if (r.actions) process.stderr.write(`actions: ${JSON.stringify(r.actions)}\n`);
      }
      const human =
        format === 'json'
          ? JSON.stringify(r.json, null, 2)
          : format === 'links'
            ? (r.links ?? []).join('\n')
            : String(r[format as 'markdown'] ?? '');
      print({ status: 'ok', url: finalUrl, ...content, metadata }, human);
    } finally {
      await engine.close();
    }
  });

interface ScrapeFlags {
  format: Format;
  schema?: string;
  allContent?: boolean;
  render: 'auto' | 'http' | 'browser';
  timeoutMs: number;
  screenshot?: string;
  fullPage?: boolean;
  action?: string[];
  header?: string[];
  cookie?: string[];
  mobile?: boolean;
  viewport?: string;
  country?: string;
  language?: string[];
}

program
  .command('crawl')
  .description('crawl one site locally (no server needed), with a progress bar on a terminal')
  .argument('<url>')
  .option('--max-depth <n>', 'link depth to follow (0 = only the start page)', positiveInt('max-depth'), 2)
  .option('--limit <n>', 'pages at most', positiveInt('limit'), 10)
  .option('--include <glob>', 'only paths matching (repeatable)', list)
  .option('--exclude <glob>', 'skip paths matching (repeatable)', list)
  .option('--subdomains', 'follow links to subdomains')
  .option('--ignore-robots', 'do not read robots.txt')
  .option('--no-sitemap', 'do not seed from sitemaps')
  .addOption(new Option('--format <format>', 'page content').choices(['markdown', 'html', 'links']).default('markdown'))
  .option('--timeout-ms <ms>', 'time budget for the whole crawl', positiveInt('timeout-ms'), 120_000)
  .option(
    '--async',
    'run it as a job on a Trawl server (TRAWL_API_URL, TRAWL_API_KEY): up to 100,000 pages; prints the job id, then its progress',
  )
  .option('--no-wait', 'with --async: print the job id and return')
  .action(
    async (
      url: string,
      o: {
        maxDepth: number;
        limit: number;
        include?: string[];
        exclude?: string[];
        subdomains?: boolean;
        ignoreRobots?: boolean;
        sitemap: boolean;
        format: Format;
        timeoutMs: number;
        async?: boolean;
        wait: boolean;
      },
    ) => {
      if (o.async) {
        const job = (
          await api<{ job: RemoteJob }>('POST', '/v1/crawl', {
            url,
            async: true,
            max_depth: o.maxDepth,
            limit: o.limit,
            include_paths: o.include,
            exclude_paths: o.exclude,
            allow_subdomains: o.subdomains,
            respect_robots: !o.ignoreRobots,
            use_sitemap: o.sitemap,
            formats: [o.format],
          })
        ).job;
        if (!o.wait) return print({ status: 'ok', job }, job.job_id);
        if (!json()) process.stderr.write(`job ${job.job_id}\n`);
        const ended = await followProgress(job.job_id, o.limit);
        return print(
          { status: 'ok', job: ended },
          `${ended.job_id} ${ended.state}: ${ended.progress.done} pages done, ${ended.progress.failed} failed — read them with: trawl jobs get ${ended.job_id}`,
        );
      }
      if (o.limit < 1 || o.limit > 1000)
        throw new TrawlError('invalid_request', 'limit: must be an integer from 1 to 1000 (up to 100000 with --async)');
      if (o.maxDepth > 10) throw new TrawlError('invalid_request', 'max-depth: must be an integer from 0 to 10');
      const { createEngine, crawl } = await import('../engine/index.js');
      const engine = createEngine(loadConfig());
      const bar = progressBar();
      try {
        const r = await crawl(engine, {
          url,
          maxDepth: o.maxDepth,
          limit: o.limit,
          includePaths: o.include,
          excludePaths: o.exclude,
          allowSubdomains: o.subdomains,
          respectRobots: !o.ignoreRobots,
          useSitemap: o.sitemap,
          formats: [o.format],
          timeoutMs: o.timeoutMs,
          concurrency: 8,
          onProgress: (p) => bar.update(p.done, p.queued, o.limit),
        });
        bar.done();
        const human =
          r.pages.map((p) => `${'  '.repeat(p.depth)}${p.url}  (${p.status_code}) ${p.title ?? ''}`).join('\n') +
          `\n${r.total} pages${r.truncated ? ' (truncated)' : ''}, ${r.errors.length} errors`;
        print({ status: 'ok', ...r }, human);
      } finally {
        bar.done();
        await engine.close();
      }
    },
  );

const jobsCmd = program.command('jobs').description("a Trawl server's jobs (TRAWL_API_URL, TRAWL_API_KEY)");
jobsCmd
  .command('get')
  .description("a job's pages as JSON lines, in completion order; --follow keeps reading until the job ends")
  .argument('<id>')
  .option('--follow', 'wait for pages still to come')
  .action(async (id: string, o: { follow?: boolean }) => {
    let cursor: string | null | undefined;
    for (;;) {
      const r = await api<{ pages: unknown[]; next_cursor: string | null }>(
        'GET',
        `/v1/jobs/${encodeURIComponent(id)}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const page of r.pages) process.stdout.write(`${JSON.stringify(page)}\n`);
      if (!r.next_cursor) return; // the job ended and every page was read
      if (!r.pages.length) {
        // Nothing new yet: the job still runs.
        if (!o.follow) return;
        await new Promise((res) => setTimeout(res, 500));
      }
      cursor = r.next_cursor;
    }
  });

program
  .command('mcp')
  .description(
    'serve Trawl to AI agents as an MCP server, on stdio (default) or Streamable HTTP at /mcp (--http); it calls TRAWL_API_URL with TRAWL_API_KEY, or runs the service in process when TRAWL_API_URL is not set',
  )
  .option('--http', 'serve Streamable HTTP instead of stdio')
  .option('--port <n>', 'HTTP port (0: any free port)', positiveInt('port'), 3100)
  .option('--host <address>', 'HTTP address to listen on', '127.0.0.1')
  .action(async (o: { http?: boolean; port: number; host: string }) => {
    if (o.port > 65535) throw new TrawlError('invalid_request', `port: must be from 0 to 65535 (got ${o.port})`);
    // Loaded here: the MCP SDK is not needed by the other commands.
    const { runMcp } = await import('../mcp/index.js');
    const running = await runMcp({ http: o.http, port: o.port, host: o.host }).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE' || e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL')
        throw new TrawlError(
          'invalid_request',
          `--host/--port: cannot listen on ${o.host}:${o.port} (${e.code}); choose another`,
        );
      throw e;
    });
    // stdio: stdout belongs to the MCP messages, nothing else is printed there. HTTP: the
    // listening line is on stderr already ("trawl mcp: MCP over HTTP on …"); --json adds its object.
    stopOnSignals(() => running.close());
    if (o.http && json()) print({ status: 'listening', url: running.url! }, '');
  });

/** The fields of a job's answer (docs/API.md) that the CLI reads. */
interface RemoteJob {
  job_id: string;
  state: string;
  progress: { done: number; failed: number; queued: number };
}

/** A call to the Trawl server named by TRAWL_API_URL with TRAWL_API_KEY; its error answer becomes the CLI's error. */
async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const base = process.env.TRAWL_API_URL;
  const key = process.env.TRAWL_API_KEY;
  if (!base || !key)
    throw new TrawlError(
      'invalid_request',
      'set TRAWL_API_URL (e.g. http://127.0.0.1:3000) and TRAWL_API_KEY to talk to a Trawl server',
    );
  const res = await fetch(new URL(path, base), {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  }).catch((e: Error) => {
    throw new TrawlError('fetch_failed', `could not reach ${base}: ${e.message}`);
  });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) {
    const { error, detail } = answer as { error?: unknown; detail?: string };
    throw new TrawlError(
      typeof error === 'string' && error in ERROR_CATALOGUE ? (error as ErrorCode) : 'fetch_failed',
      detail ?? `${base} answered HTTP ${res.status}`,
    );
  }
  return answer as T;
}

/** Polls a job with a progress bar (on a terminal) until it ends; returns it. */
async function followProgress(id: string, limit: number): Promise<RemoteJob> {
  const bar = progressBar();
  try {
    for (;;) {
      const { job } = await api<{ job: RemoteJob }>('GET', `/v1/jobs/${id}?limit=1`);
      bar.update(job.progress.done + job.progress.failed, job.progress.queued, limit);
      if (!['queued', 'running'].includes(job.state)) return job;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    bar.done();
  }
}

/** The redactor for printed errors; none when the configuration is what failed to load. */
function errorRedactor(): Redactor {
  try {
    return createRedactor(configSecrets(loadConfig()));
  } catch {
    return (s) => s;
  }
}

export async function main(argv = process.argv): Promise<void> {
  program.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (e) {
    const err = e as { code?: string; exitCode?: number; message?: string };
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help')
      return;
    const t = isTrawlError(e)
      ? e
      : err.code?.startsWith('commander.')
        ? new TrawlError('invalid_request', err.message?.replace(/^error: /, '') ?? 'bad arguments')
        : undefined;
    const redact = errorRedactor();
    if (json())
      process.stdout.write(
        `${redact(JSON.stringify(t ? { error: t.code, detail: t.detail } : { error: 'internal_error', detail: (e as Error).message }))}\n`,
      );
    else if (!err.code?.startsWith('commander.'))
      process.stderr.write(`error: ${redact(String(t ? t.detail : (e as Error).stack))}\n`);
    process.exitCode = 1;
  }
}
