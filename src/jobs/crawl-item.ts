/**
 * A crawl job's page: the engine's per-page function (../engine/crawl/crawl-page.ts) over the
 * store's frontier (../store/repos/jobs/: claims, the seen set, the counts), adapted here. The
 * runner (./runner.ts) claims items, calls crawlPage with the job's scope (./page-options.ts) and hands
 * the outcome to finishItems.
 */
import type { Frontier } from '../engine/crawl/index.js';
import { jobs as repo, type Store } from '../store/index.js';

export type { CrawlJobOptions } from './page-options.js';

/** A job's frontier as the per-page function asks it: the store's items of that job. */
export const storeFrontier = (store: Pick<Store, 'db'>, jobId: string): Frontier => ({
  taken: (url, depth) => repo.itemTaken(store.db, jobId, url, depth),
});
