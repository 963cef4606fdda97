/**
 * The `trawl` command. `--json` makes every command print exactly one JSON object on
 * stdout (and nothing else there); errors then are `{"error","detail"}` with exit code 1.
 */
import { Command } from 'commander';
import { loadConfig } from '../config.js';
import { TrawlError, isTrawlError } from '../errors.js';
import { stopOnSignals } from './shutdown.js';
import { configSecrets, createRedactor, type Redactor } from '../redact.js';
import { cliOf, positiveInt } from './shared.js';
import { registerAdminCommands } from './commands/admin.js';
import { registerScrapeCommand } from './commands/scrape.js';
import { registerCrawlCommand } from './commands/crawl.js';
import { registerJobsCommands } from './commands/jobs.js';
import { registerChannelsCommands } from './commands/channels.js';
import { registerSessionsCommands } from './commands/sessions.js';

// Each command loads what it needs when it runs (`await import`): an admin command such as
// `keys list` needs the store, not the engine, the server, Chromium's driver or the MCP SDK,
// whose imports took most of its time (issue 43). The command modules import nothing heavy at the top.
// The commands that start a process (serve, worker, mcp) stay here: this entry is the one CLI file
// the import rule lets reach runtime.ts and mcp/index.ts.

const program = new Command();
program
  .name('trawl')
  .description('Trawl: web data extraction API')
  .option('--json', 'print one JSON object on stdout', false);

const cli = cliOf(program);
const { json, print } = cli;

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
registerAdminCommands(cli);
registerScrapeCommand(cli);
registerCrawlCommand(cli);
registerJobsCommands(cli);
registerChannelsCommands(cli);
registerSessionsCommands(cli);

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
