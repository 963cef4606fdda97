export { crawl, type CrawlOptions, type CrawlResult, type CrawledPage } from './crawler.js';
export { canonicalUrl } from './canonical.js';
export { parseRobots, type RobotsRules } from './robots.js';
export { parseSitemap, readSitemaps } from './sitemap.js';
export { globToRegExp, pathFilter } from './glob.js';
export { mapSite, type MapOptions, type MapResult, type MappedLink } from './map.js';
export {
  crawlPage,
  RobotsCache,
  type CrawlPageRequest,
  type CrawlScope,
  type CrawlStores,
  type ItemOutcome,
} from './crawl-page.js';
export type { CrawlPageOptions } from './rich-page.js';
export type { LinkRules } from './link-rules.js';
export type { Discovered, Frontier } from './frontier.js';
export { HostGate, hostTurn, type Gate } from './host-gate.js';
