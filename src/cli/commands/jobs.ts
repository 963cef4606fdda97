/** `trawl jobs`: a Trawl server's jobs, read over its API. */
import { api } from '../remote.js';
import type { Cli } from '../shared.js';

export function registerJobsCommands({ program }: Cli): void {
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
}
