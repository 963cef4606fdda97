export { crawl, type CrawlOptions, type CrawlResult, type CrawledPage } from './crawler.js';
export { canonicalUrl } from './canonical.js';
export { parseRobots, type RobotsRules } from './robots.js';
export { parseSitemap, readSitemaps } from './sitemap.js';
export { globToRegExp, pathFilter } from './glob.js';
export { mapSite, type MapOptions, type MapResult, type MappedLink } from './map.js';
