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

export interface Region {
  /** Currency prices are shown in unless the page says otherwise (ISO 4217). */
  currency: string;
  /** The region's decimal separator, for reading "1.299,00" and "1,299.00" alike. */
  decimal: '.' | ',';
  /** Accept-Language a shopper of this region sends. */
  language: string;
}

const REGIONS: Record<string, Region> = {
  us: { currency: 'USD', decimal: '.', language: 'en-US,en;q=0.9' },
  uk: { currency: 'GBP', decimal: '.', language: 'en-GB,en;q=0.9' },
  ie: { currency: 'EUR', decimal: '.', language: 'en-IE,en;q=0.9' },
  ca: { currency: 'CAD', decimal: '.', language: 'en-CA,en;q=0.9,fr-CA;q=0.8' },
  au: { currency: 'AUD', decimal: '.', language: 'en-AU,en;q=0.9' },
  in: { currency: 'INR', decimal: '.', language: 'en-IN,en;q=0.9,hi;q=0.8' },
  mx: { currency: 'MXN', decimal: '.', language: 'es-MX,es;q=0.9,en;q=0.8' },
  jp: { currency: 'JPY', decimal: '.', language: 'ja-JP,ja;q=0.9,en;q=0.8' },
  de: { currency: 'EUR', decimal: ',', language: 'de-DE,de;q=0.9,en;q=0.8' },
  fr: { currency: 'EUR', decimal: ',', language: 'fr-FR,fr;q=0.9,en;q=0.8' },
  it: { currency: 'EUR', decimal: ',', language: 'it-IT,it;q=0.9,en;q=0.8' },
  es: { currency: 'EUR', decimal: ',', language: 'es-ES,es;q=0.9,en;q=0.8' },
};

/** The region of a marketplace id (`amazon_de` → German number format, EUR, de-DE). */
export function regionOf(id: string): Region {
  const r = REGIONS[id.slice(id.indexOf('_') + 1)] ?? REGIONS.us;
  // Etsy shows prices in the shopper's chosen currency; its regions differ by language only.
  return r;
}

export const marketplaceName = (id: string) => id.slice(0, id.indexOf('_'));

/** Product id patterns in each marketplace's URLs. */
const ID_IN_URL: Record<string, RegExp[]> = {
  amazon: [/\/(?:dp|gp\/product|gp\/aw\/d|product|exec\/obidos\/ASIN)\/([A-Z0-9]{10})(?:[/?#]|$)/i],
  ebay: [/\/itm\/(?:[^/]+\/)?(\d{9,15})(?:[/?#]|$)/, /[?&]item=(\d{9,15})/],
  walmart: [/\/ip\/(?:[^/]+\/)?(\d{5,15})(?:[/?#]|$)/],
  etsy: [/\/listing\/(\d{5,15})(?:[/?#]|$)/],
  target: [/\/A-(\d{5,12})(?:[/?#]|$)/],
  bestbuy: [
    /\/sku\/(\d{5,10})(?:[/?#]|$)/,
    /[?&]skuId=(\d{5,10})/,
    /\/(\d{7,8})\.p(?:[/?#]|$)/,
    /\/product\/[^?#]*?\/(\d{6,10})(?:[/?#]|$)/,
  ],
};

/** The product id the URL carries (ASIN, eBay item number, Walmart item id, Etsy listing id, Target TCIN, Best Buy SKU). */
export function productIdFromUrl(id: string, url: string): string | undefined {
  let path: string;
  try {
    const u = new URL(url);
    path = u.pathname + u.search;
  } catch {
    return undefined;
  }
  for (const re of ID_IN_URL[marketplaceName(id)] ?? []) {
    const m = re.exec(path);
    if (m) return marketplaceName(id) === 'amazon' ? m[1].toUpperCase() : m[1];
  }
  return undefined;
}
