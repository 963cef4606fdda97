/**
 * `crawl` and `crawl_status`. A small crawl (limit ≤ 20) is one synchronous request; a larger one
 * runs as a job (POST /v1/crawl with async) that the tool waits on, polling GET /v1/jobs/{id} and
 * reporting progress to a client that gave a progressToken. Pages come back listed, with excerpts
 * sharing the token budget; a job still running after `wait_seconds` is handed over to
 * `crawl_status`, and so are pages beyond those one answer shows.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { TrawlApi } from '../client.js';
import { cutText, shareBudget, tokensToChars } from '../budget.js';
import type { Extra, ToolContext } from '../context.js';
import { defined, guarded, ok, query } from '../results.js';
import { maxTokens } from './shared.js';

/** Crawls up to this many pages run synchronously; larger ones become jobs. */
export const SYNC_CRAWL_LIMIT = 20;
export const CRAWL_TOKENS = 8000;
/** Default wait for a job: under the 60 s request timeout many MCP clients use. */
export const CRAWL_WAIT_SECONDS = 50;
/** Too short an excerpt is noise: the page is listed without one. */
const MIN_EXCERPT = 120;

interface Job {
  job_id: string;
  kind: string;
  state: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  progress: { done: number; failed: number; queued: number };
  created_at: string;
  finished_at: string | null;
}

interface CrawlPage {
  url: string;
  depth?: number;
  status_code?: number;
  title?: string | null;
  markdown?: string;
  error?: string;
  detail?: string;
}

const ENDED = new Set(['completed', 'failed', 'cancelled']);

const waitSeconds = (fallback: number) =>
  z
    .number()
    .int()
    .min(0)
    .max(600)
    .optional()
    .describe(
      `For a job: how long to wait for it to end before answering with the pages so far (default ${fallback}); crawl_status waits on.`,
    );

const crawlInput = {
  url: z.string().describe('Start page (http or https). Only pages of the same site are followed.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .optional()
    .describe(
      `Most pages to crawl (default 10). Up to ${SYNC_CRAWL_LIMIT} run at once; more run as a job (up to 100000) whose progress is reported.`,
    ),
  max_depth: z
    .number()
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe('Link depth to follow (default 2; 0 = only the start page).'),
  include_paths: z.array(z.string()).optional().describe('Only URL paths matching these globs, e.g. ["/blog/**"].'),
  exclude_paths: z.array(z.string()).optional().describe('Skip URL paths matching these globs, e.g. ["/tag/*"].'),
  allow_subdomains: z.boolean().optional().describe('Also follow links to subdomains (default false).'),
  respect_robots: z.boolean().optional().describe('Obey robots.txt (default true).'),
  use_sitemap: z.boolean().optional().describe("Also take URLs from the site's sitemaps (default true)."),
  only_main_content: z.boolean().optional().describe('Main content only, without page chrome (default true).'),
  wait_seconds: waitSeconds(CRAWL_WAIT_SECONDS),
  max_tokens: maxTokens(CRAWL_TOKENS, 'page excerpts and listing in all'),
};

const statusInput = {
  job_id: z.string().describe('The job_id a crawl answered with.'),
  cursor: z.string().optional().describe('The next_cursor of the previous answer, to read the pages after those.'),
  wait_seconds: waitSeconds(CRAWL_WAIT_SECONDS),
  max_tokens: maxTokens(CRAWL_TOKENS, 'page excerpts and listing in all'),
};

const output = {
  url: z.string().optional(),
  job: z
    .object({
      job_id: z.string(),
      state: z.string(),
      progress: z.object({ done: z.number(), failed: z.number(), queued: z.number() }),
    })
    .optional()
    .describe('Present when the crawl runs as a job.'),
  total: z.number().int().describe('Pages crawled so far (failed ones included).'),
  truncated: z.boolean().optional().describe('The page limit or time budget stopped the crawl with URLs left.'),
  pages: z.array(
    z.object({
      url: z.string(),
      title: z.string().nullable().optional(),
      depth: z.number().int().optional(),
      status_code: z.number().int().optional(),
      markdown: z.string().optional().describe('An excerpt of the page, cut to the token budget.'),
      error: z.string().optional(),
      detail: z.string().optional(),
    }),
  ),
  excerpts_cut: z.boolean(),
  errors: z.array(z.object({ url: z.string(), error: z.string() })).optional(),
  next_cursor: z.string().optional().describe('More pages to read: pass to crawl_status with the job_id.'),
};

export function registerCrawl(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'crawl',
    {
      title: 'Crawl a website',
      description:
        'Crawl one website breadth-first from a start URL, up to max_depth links deep and limit pages, and return the pages found with markdown excerpts sharing max_tokens. ' +
        `Up to ${SYNC_CRAWL_LIMIT} pages answer at once; a larger limit runs as a job the tool waits on (wait_seconds), reporting progress; what is not done or not shown by then is read with crawl_status. ` +
        "To list a site's URLs without content use map; to read one page in full use scrape. Costs 1 credit.",
      inputSchema: crawlInput,
      outputSchema: output,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args, extra) =>
      guarded(ctx.log, 'crawl', async () => {
        const api = await ctx.api(extra);
        const limit = args.limit ?? 10;
        const tokens = args.max_tokens ?? CRAWL_TOKENS;
        const body = defined({
          url: args.url,
          limit,
          max_depth: args.max_depth,
          include_paths: args.include_paths,
          exclude_paths: args.exclude_paths,
          allow_subdomains: args.allow_subdomains,
          respect_robots: args.respect_robots,
          use_sitemap: args.use_sitemap,
          only_main_content: args.only_main_content,
          formats: ['markdown'],
        });
        if (limit <= SYNC_CRAWL_LIMIT) {
          const r = await api.post<{
            pages: CrawlPage[];
            total: number;
            truncated: boolean;
            errors: { url: string; error: string }[];
          }>('/v1/crawl', body, extra.signal);
          return present(
            { url: args.url, pages: r.pages, total: r.total, truncated: r.truncated, errors: r.errors },
            tokens,
          );
        }
        const { job: started } = await api.post<{ job: Job }>('/v1/crawl', { ...body, async: true }, extra.signal);
        let job: Job;
        try {
          job = await waitForJob(api, started.job_id, (args.wait_seconds ?? CRAWL_WAIT_SECONDS) * 1000, extra);
        } catch (e) {
          // The client cancelled the call: the crawl it asked for stops too (pages done are kept).
          if (extra.signal.aborted) void api.delete(`/v1/jobs/${started.job_id}`).catch(() => undefined);
          throw e;
        }
        return readJob(api, job, undefined, tokens, extra, args.url);
      }),
  );

  server.registerTool(
    'crawl_status',
    {
      title: 'Crawl job status and pages',
      description:
        'Wait on a crawl job (from crawl) and read its pages: its state and progress, then the next pages with excerpts. Pass next_cursor from the previous answer to read further pages. Costs nothing.',
      inputSchema: statusInput,
      outputSchema: output,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      guarded(ctx.log, 'crawl_status', async () => {
        const api = await ctx.api(extra);
        const id = encodeURIComponent(args.job_id);
        const job = await waitForJob(api, id, (args.wait_seconds ?? CRAWL_WAIT_SECONDS) * 1000, extra);
        return readJob(api, job, args.cursor, args.max_tokens ?? CRAWL_TOKENS, extra);
      }),
  );
}

/** Polls the job until it ends or `waitMs` passes, reporting progress when the client asked for it. */
async function waitForJob(api: TrawlApi, id: string, waitMs: number, extra: Extra): Promise<Job> {
  const deadline = Date.now() + waitMs;
  const token = extra._meta?.progressToken;
  let reported = -1;
  let delay = 250;
  for (;;) {
    const { job } = await api.get<{ job: Job }>(`/v1/jobs/${id}${query({ limit: 1 })}`, extra.signal);
    const { done, failed, queued } = job.progress;
    // Progress must grow from one notification to the next (MCP): only new counts are sent.
    if (token !== undefined && done + failed > reported) {
      reported = done + failed;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress: reported,
          total: done + failed + queued,
          message: `${job.job_id} ${job.state}: ${done} pages done, ${failed} failed, ${queued} queued`,
        },
      });
    }
    if (ENDED.has(job.state) || Date.now() >= deadline) return job;
    await sleep(Math.min(delay, deadline - Date.now()), extra.signal);
    delay = Math.min(1000, Math.round(delay * 1.5));
  }
}

/** Reads one answer's worth of the job's pages (as many as the budget can list) from `cursor`. */
async function readJob(
  api: TrawlApi,
  job: Job,
  cursor: string | undefined,
  tokens: number,
  extra: Extra,
  url?: string,
) {
  const batch = Math.max(5, Math.min(100, Math.floor(tokensToChars(tokens) / 600)));
  const r = await api.get<{ job: Job; pages: CrawlPage[]; next_cursor: string | null }>(
    `/v1/jobs/${encodeURIComponent(job.job_id)}${query({ limit: batch, cursor })}`,
    extra.signal,
  );
  const { done, failed } = r.job.progress;
  return present(
    { url, job: r.job, pages: r.pages, total: done + failed, nextCursor: r.next_cursor ?? undefined },
    tokens,
  );
}

interface Crawled {
  url?: string;
  job?: Job;
  pages: CrawlPage[];
  total: number;
  truncated?: boolean;
  errors?: { url: string; error: string }[];
  nextCursor?: string;
}

function present(c: Crawled, tokens: number) {
  const headers = c.pages.map((p) => header(p).length + 1);
  const room = tokensToChars(tokens) - headers.reduce((a, b) => a + b, 0);
  const shares = shareBudget(
    c.pages.map((p) => p.markdown?.length ?? 0),
    room,
  );
  let cutAny = false;
  const pages = c.pages.map((p, i) => {
    const md = p.markdown;
    const excerpt = md && shares[i] >= Math.min(MIN_EXCERPT, md.length) ? cutText(md, shares[i]) : undefined;
    if (md && (!excerpt || excerpt.truncated)) cutAny = true;
    return defined({
      url: p.url,
      title: p.title,
      depth: p.depth,
      status_code: p.status_code,
      markdown: excerpt?.text,
      error: p.error,
      detail: p.detail,
    });
  });
  const job = c.job && { job_id: c.job.job_id, state: c.job.state, progress: c.job.progress };
  const lines: string[] = [];
  if (job) {
    const { done, failed, queued } = job.progress;
    lines.push(
      `Crawl job ${job.job_id} is ${job.state}: ${done} pages done, ${failed} failed${queued ? `, ${queued} queued` : ''}.`,
    );
  } else {
    lines.push(
      `Crawled ${c.total} page${c.total === 1 ? '' : 's'} from ${c.url}${c.truncated ? ' (the page limit or time budget stopped it; more pages were found)' : ''}.`,
    );
  }
  if (c.pages.length) lines.push(`${c.pages.length} page${c.pages.length === 1 ? '' : 's'} below.`);
  c.pages.forEach((p, i) => {
    lines.push('', header(p));
    if (pages[i].markdown) lines.push(pages[i].markdown!);
  });
  if (c.errors?.length)
    lines.push(
      '',
      'Not crawled:',
      ...c.errors.slice(0, 20).map((e) => `- ${e.url}: ${e.error}`),
      ...(c.errors.length > 20 ? [`- … ${c.errors.length - 20} more`] : []),
    );
  if (cutAny)
    lines.push('', `[Excerpts were cut to fit ${tokens} tokens; call scrape with a page's URL to read it whole.]`);
  if (job && !ENDED.has(job.state))
    lines.push(
      '',
      `[The job is still running; call crawl_status with job_id "${job.job_id}"${c.nextCursor ? ` and cursor "${c.nextCursor}"` : ''} to wait for it and read the next pages.]`,
    );
  else if (job && c.nextCursor)
    lines.push('', `[More pages: call crawl_status with job_id "${job.job_id}" and cursor "${c.nextCursor}".]`);
  return ok(
    lines.join('\n'),
    defined({
      url: c.url,
      job,
      total: c.total,
      truncated: c.truncated,
      pages,
      excerpts_cut: cutAny,
      errors: c.errors,
      next_cursor: c.nextCursor,
    }),
  );
}

/** A rule, not a heading, starts each page: the page's own markdown brings its headings. */
function header(p: CrawlPage): string {
  const facts = [p.depth !== undefined ? `depth ${p.depth}` : '', p.status_code ? `HTTP ${p.status_code}` : '']
    .filter(Boolean)
    .join(', ');
  const head = `--- ${p.title || p.url}`;
  const where = `URL: ${p.url}${facts ? ` (${facts})` : ''}`;
  return p.error ? `${head}\n${where}\nFailed: ${p.error}${p.detail ? ` — ${p.detail}` : ''}` : `${head}\n${where}`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
