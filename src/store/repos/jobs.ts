/**
 * Jobs: a job row, its items (the frontier, one per URL, claimed with leases so a dead worker's
 * items come back) and its result pages in completion order. Counts live on the job row and move
 * in the same transaction as the item and its page, so progress is exact and every item ends in
 * one page.
 *
 * Split by what each part guards (./jobs/): lifecycle (make, cancel, drop, prune), reads (jobs
 * and pages), claims (the items' hand-out and leases), frontier (items ending with their pages,
 * links admitted, redirects merged). This file keeps the names callers import.
 */
export type { JobEventBuilder } from './jobs/common.js';
export { cancelJob, createJob, dropPages, pruneEndedJob, releaseJob } from './jobs/lifecycle.js';
export {
  failedPagesAfter,
  getJob,
  hasPageAfter,
  jobState,
  listJobs,
  pagesAfter,
  pagesByDepth,
  pagesWithin,
} from './jobs/reads.js';
export { claimItems, renewItems, takeItems, type ClaimedItem } from './jobs/claims.js';
export { finishItem, finishItems, itemTaken, type Discovered, type FinishedItem } from './jobs/frontier.js';
