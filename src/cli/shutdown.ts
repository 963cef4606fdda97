/**
 * How a long-running command (serve, worker, mcp --http) stops: on SIGTERM or SIGINT, and —
 * when npm started it — when its parent goes. `npx trawl serve` runs as npm → `sh -c trawl …`
 * → node; a signal sent to npm is forwarded to the shell, which dies of it without passing it
 * on, so the server was left running, orphaned (issue 43). Started by npm (`npm_command` in
 * the environment), the process therefore watches its parent and stops as if sent SIGTERM
 * once it is re-parented. Started any other way (a shell, systemd, Docker), only signals count.
 * A second signal, or a close that takes longer than `graceMs`, exits at once.
 */
export function stopOnSignals(
  close: () => Promise<void>,
  options: { env?: NodeJS.ProcessEnv; graceMs?: number; everyMs?: number } = {},
): void {
  const env = options.env ?? process.env;
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(1);
    stopping = true;
    setTimeout(() => process.exit(1), options.graceMs ?? 10_000).unref();
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (!env.npm_command) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      stop();
    }
  }, options.everyMs ?? 500);
  timer.unref();
}
