/**
 * What the per-page function (./crawl-page.ts) hands a crawl's frontier and asks of it. The
 * frontier itself — what is queued, seen and counted — is the caller's: the store's for jobs and
 * synchronous crawls (store/repos/jobs/frontier.ts, adapted in jobs/), in memory for the CLI and
 * benches (./crawler.ts), as Crawlee's request managers sit behind one crawler.
 */

/** Links a crawled page found, to admit at `depth` (the frontier decides which are new). */
export interface Discovered {
  urls: string[];
  depth: number;
}

export interface Frontier {
  /**
   * Another page of the crawl has this canonical URL in hand (fetching or done) at `depth` or
   * shallower: a redirect to it is not followed, that page answers it and reads its links as far,
   * so the site sees one request. (Held deeper — at max_depth, its links unread — the redirect is
   * followed: this page reads the links, and is dropped as a page of its own when written.)
   */
  taken(url: string, depth: number): Promise<boolean>;
}
