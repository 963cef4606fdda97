/**
 * The marketplaces of the contract: ids (`<name>_<region>`) and the hosts each serves. One
 * table, so validating an id, checking a URL against it and inferring the id from a URL agree.
 */

interface Site {
  /** Host without `www.`; the `www.`, `m.` and `smile.` forms are accepted where they exist. */
  host: string;
  /** Etsy serves every region from one host: a language path picks the region. */
  path?: RegExp;
  variants?: string[];
}

const SITES: Record<string, Site> = {
  amazon_us: { host: 'amazon.com', variants: ['smile', 'm'] },
  amazon_uk: { host: 'amazon.co.uk', variants: ['smile', 'm'] },
  amazon_de: { host: 'amazon.de', variants: ['smile', 'm'] },
  amazon_fr: { host: 'amazon.fr', variants: ['m'] },
  amazon_it: { host: 'amazon.it', variants: ['m'] },
  amazon_es: { host: 'amazon.es', variants: ['m'] },
  amazon_ca: { host: 'amazon.ca', variants: ['smile', 'm'] },
  amazon_mx: { host: 'amazon.com.mx', variants: ['m'] },
  amazon_jp: { host: 'amazon.co.jp', variants: ['m'] },
  amazon_in: { host: 'amazon.in', variants: ['m'] },
  amazon_au: { host: 'amazon.com.au', variants: ['m'] },
  walmart_us: { host: 'walmart.com' },
  walmart_ca: { host: 'walmart.ca' },
  ebay_us: { host: 'ebay.com', variants: ['m'] },
  ebay_uk: { host: 'ebay.co.uk', variants: ['m'] },
  ebay_de: { host: 'ebay.de', variants: ['m'] },
  ebay_fr: { host: 'ebay.fr', variants: ['m'] },
  ebay_it: { host: 'ebay.it', variants: ['m'] },
  ebay_es: { host: 'ebay.es', variants: ['m'] },
  ebay_ie: { host: 'ebay.ie', variants: ['m'] },
  ebay_ca: { host: 'ebay.ca', variants: ['m'] },
  ebay_au: { host: 'ebay.com.au', variants: ['m'] },
  etsy_us: { host: 'etsy.com' },
  etsy_uk: { host: 'etsy.com', path: /^\/uk(\/|$)/ },
  etsy_de: { host: 'etsy.com', path: /^\/de(\/|$)/ },
  etsy_fr: { host: 'etsy.com', path: /^\/fr(\/|$)/ },
  etsy_es: { host: 'etsy.com', path: /^\/es(\/|$)/ },
  target_us: { host: 'target.com' },
  bestbuy_us: { host: 'bestbuy.com' },
  bestbuy_ca: { host: 'bestbuy.ca' },
};

export const MARKETPLACE_IDS: readonly string[] = Object.keys(SITES);

export const isMarketplaceId = (id: string): boolean => Object.hasOwn(SITES, id);

/** The marketplace's bare host when `hostname` is it, its `www.` form or a listed variant. */
function bareHost(hostname: string, site: Site): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (h === site.host || h === `www.${site.host}`) return true;
  return (site.variants ?? []).some((v) => h === `${v}.${site.host}`);
}

/** Whether `url` is a page of marketplace `id` (host, and for Etsy the language path where the id has one). */
export function urlBelongsTo(url: URL, id: string): boolean {
  const site = SITES[id];
  if (!site || !bareHost(url.hostname, site)) return false;
  // etsy_us accepts any Etsy URL without a language path of another region.
  if (site.path) return site.path.test(url.pathname);
  return !Object.values(SITES).some((s) => s !== site && s.host === site.host && s.path?.test(url.pathname));
}

/** The marketplace id a URL belongs to, or undefined when its host is not a supported marketplace. */
export function marketplaceForUrl(url: URL): string | undefined {
  return MARKETPLACE_IDS.find((id) => urlBelongsTo(url, id));
}
