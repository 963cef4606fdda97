/** `trawl crawl`: a site crawled in this process, or (`--async`) as a job on a Trawl server. */
import { Option } from 'commander';
import { loadConfig } from '../../config.js';
import { TrawlError } from '../../errors.js';
import type { Format } from '../../engine/index.js';
import { progressBar } from '../progress.js';
import { api, followProgress, type RemoteJob } from '../remote.js';
import { list, positiveInt, type Cli } from '../shared.js';

export function registerCrawlCommand({ program, print, json }: Cli): void {
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
    .addOption(
      new Option('--format <format>', 'page content').choices(['markdown', 'html', 'links']).default('markdown'),
    )
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
          throw new TrawlError(
            'invalid_request',
            'limit: must be an integer from 1 to 1000 (up to 100000 with --async)',
          );
        if (o.maxDepth > 10) throw new TrawlError('invalid_request', 'max-depth: must be an integer from 0 to 10');
        const { createEngine, crawl } = await import('../../engine/index.js');
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
}
