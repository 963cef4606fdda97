/** A one-line progress bar on stderr, drawn only on a terminal (never into pipes or --json). */
export function progressBar(stream: NodeJS.WriteStream = process.stderr) {
  const enabled = !!stream.isTTY;
  let last = 0;
  return {
    update(done: number, queued: number, limit: number) {
      if (!enabled) return;
      const now = Date.now();
      if (now - last < 80) return;
      last = now;
      const total = Math.min(limit, done + queued) || 1;
      const width = 30;
      const filled = Math.round((Math.min(done, total) / total) * width);
      stream.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} pages, ${queued} queued `);
    },
    done() {
      if (enabled) stream.write('\r\x1b[K');
    },
  };
}
