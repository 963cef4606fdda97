/**
 * An advertiser's ads from Meta's Ad Library. With META_ACCESS_TOKEN: the official Graph API
 * (`ads_archive`, cursor paging). Without: the public web library — the advertiser's page gives
 * its page id, the library's results page gives the tokens its GraphQL endpoint wants (`lsd`,
 * the pagination query's `doc_id`) and the first batch, then `AdLibrarySearchPaginationQuery`
 * pages until `limit`. Tokens are read from the pages fetched, never hard-coded. Every request
 * goes through the engine's client (SSRF guard, proxies, limits) within one time budget.
 */
import { blocked, fetchFailed, notFound, TrawlError, timeoutError } from '../../errors.js';
import { createRedactor } from '../../redact.js';
import type { HttpClient, HttpResponse } from '../fetch/http.js';
import { balancedJson } from '../extract/sources/app-state.js';
import { adFromGraph, adFromWeb, type Ad } from './ad.js';

export type { Ad } from './ad.js';

export interface MetaAdsOptions {
  /** The page's handle; or, with `pageId`, only a label (the page is not looked up). */
  advertiser: string;
  /** The page's id when it is known (an Ad Library URL names it): no handle lookup. */
  pageId?: string;
  country: string;
  activeStatus?: 'active' | 'inactive' | 'all';
  platforms?: ('facebook' | 'instagram')[];
  limit?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface MetaAdsConfig {
  libraryBaseUrl: string;
  graphBaseUrl: string;
  accessToken?: string;
  /** First wait after Meta's rate-limit answer; doubles each time, within the budget. */
  retryBaseMs?: number;
}

export interface MetaAdsResult {
  advertiser: string;
  country: string;
  page: { id: string; name: string | null; url: string };
  ads: Ad[];
  /** What the library reports; when it reports nothing, the count of a listing read to its end (else null). */
  total: number | null;
  source: 'web' | 'graph_api';
}

const RATE_LIMIT_CODES = new Set([1675004, 4, 17, 32, 613]);
const GRAPH_VERSION = 'v21.0';
const GRAPH_FIELDS =
  'id,ad_snapshot_url,ad_creation_time,ad_delivery_start_time,ad_delivery_stop_time,ad_creative_bodies,ad_creative_link_titles,ad_creative_link_captions,ad_creative_link_descriptions,publisher_platforms,page_id,page_name,spend,impressions,currency';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a site's untyped JSON

class Budget {
  readonly deadline: number;
  constructor(
    ms: number,
    readonly signal?: AbortSignal,
  ) {
    this.deadline = Date.now() + ms;
  }
  left(): number {
    const ms = this.deadline - Date.now();
    if (ms <= 0) throw timeoutError('the Ad Library did not answer within the time budget');
    return ms;
  }
}

/** JSON from a Meta endpoint (its `for (;;);` guard removed); undefined when it is not JSON. */
function parseJson(body: Buffer): Json | undefined {
  const s = body
    .toString('utf8')
    .replace(/^for \(;;\);/, '')
    .trim();
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

const errorCode = (j: Json | undefined): number | undefined => {
  const e = j?.errors?.[0] ?? j?.error;
  const code = e?.code ?? e?.api_error_code;
  return typeof code === 'number' ? code : undefined;
};

/** A request Meta may answer with its rate limit: retried with doubling waits while the budget lasts. */
async function withRateLimit<T>(
  budget: Budget,
  base: number,
  what: string,
  attempt: () => Promise<{ rateLimited: true } | { value: T }>,
): Promise<T> {
  for (let wait = base; ; wait *= 2) {
    const r = await attempt();
    if ('value' in r) return r.value;
    if (budget.deadline - Date.now() < wait + 1000)
      throw fetchFailed(
        `Meta rate-limited ${what} (error 1675004) and kept refusing within the time budget; try again in a few minutes`,
      );
    await new Promise((res) => setTimeout(res, wait));
  }
}

function looksLikeLoginWall(res: HttpResponse): boolean {
  if (/\/login(?:\.php|\/)|\/checkpoint\//.test(res.url)) return true;
  const head = res.body.subarray(0, 200_000).toString('utf8');
  return (
    /id="login_form"|name="login"[^>]*type="submit"|\/checkpoint\/block\//.test(head) &&
    !/ad_library_main|"pageID"/.test(head)
  );
}

/** The JSON object starting at `from` (a `{`), for state embedded in a page's scripts. */
function objectAt(s: string, from: number): Json | undefined {
  try {
    return JSON.parse(balancedJson(s, from) ?? '');
  } catch {
    return undefined;
  }
}

interface Connection {
  results: Json[];
  cursor: string | null;
  hasNext: boolean;
  count: number | null;
}

function connectionOf(data: Json | undefined): Connection | undefined {
  const c = data?.ad_library_main?.search_results_connection;
  if (!c) return undefined;
  const results = ((c.edges ?? []) as Json[]).flatMap((e) => (e?.node?.collated_results ?? []) as Json[]);
  return {
    results,
    cursor: c.page_info?.end_cursor ?? null,
    hasNext: c.page_info?.has_next_page === true,
    count: typeof c.count === 'number' ? c.count : null,
  };
}

/** The Ad Library's keyword search: the page whose profile URL is `/{handle}/` among the first results. */
async function searchLibraryForPage(
  get: (url: string) => Promise<HttpResponse>,
  base: string,
  handle: string,
  country: string,
): Promise<{ pageId: string; name: string | null } | undefined> {
  const q = new URLSearchParams({
    active_status: 'all',
    ad_type: 'all',
    country,
    q: handle,
    search_type: 'keyword_unordered',
    media_type: 'all',
  });
  const res = await get(`${base}/ads/library/?${q}`);
  if (looksLikeLoginWall(res)) throw blocked('Meta answered the Ad Library search with a login wall');
  if (res.status >= 400) return undefined;
  const html = res.body.toString('utf8');
  const at = html.indexOf('"ad_library_main"');
  const conn = at < 0 ? undefined : connectionOf(objectAt(html, html.lastIndexOf('{', at)));
  for (const r of conn?.results ?? []) {
    const profile = r.snapshot?.page_profile_uri;
    let path: string;
    try {
      path = typeof profile === 'string' ? new URL(profile).pathname : '';
    } catch {
      path = '';
    }
    if (path.replace(/\/+$/, '').toLowerCase() === `/${handle}` && r.page_id)
      return { pageId: String(r.page_id), name: typeof r.page_name === 'string' ? r.page_name : null };
  }
  return undefined;
}

async function viaWeb(
  http: HttpClient,
  o: Omit<Required<Omit<MetaAdsOptions, 'signal' | 'timeoutMs'>>, 'pageId'> & { pageId?: string },
  config: MetaAdsConfig,
  budget: Budget,
): Promise<MetaAdsResult> {
  const base = config.libraryBaseUrl.replace(/\/$/, '');
  const get = (url: string) =>
    http.request(url, {
      timeoutMs: budget.left(),
      signal: budget.signal,
      headers: { 'accept-language': 'en-US,en;q=0.9' },
    });
  // 1. The advertiser's own page: its id and name (unless the id is known).
  let pageId = o.pageId;
  let name: string | null = null;
  if (!pageId) {
    const pageUrl = `${base}/${o.advertiser}/`;
    const pageRes = await get(pageUrl);
    if (looksLikeLoginWall(pageRes)) throw blocked(`Meta answered ${pageUrl} with a login wall`);
    if (pageRes.status >= 400 && pageRes.status !== 404)
      throw fetchFailed(`${pageUrl} answered HTTP ${pageRes.status}`);
    const pageHtml = pageRes.status === 404 ? '' : pageRes.body.toString('utf8');
    pageId =
      /"pageID"\s*:\s*"(\d+)"|"page_id"\s*:\s*"(\d+)"|fb:\/\/page\/(?:\?id=)?(\d+)|"delegate_page"\s*:\s*\{"id"\s*:\s*"(\d+)"/
        .exec(pageHtml)
        ?.slice(1)
        .find(Boolean);
    if (pageId) {
      name =
        /<meta property="og:title" content="([^"]*)"/.exec(pageHtml)?.[1] ??
        /<title>([^<]*)<\/title>/.exec(pageHtml)?.[1]?.replace(/\s*\|\s*Facebook\s*$/, '') ??
        null;
    } else {
      // Not a page of that name (or its page shows no id): the library's own search, keeping the
      // result whose page profile is that handle.
      const found = await searchLibraryForPage(get, base, o.advertiser, o.country);
      if (!found) throw notFound(`no Facebook page "${o.advertiser}" with ads in the Ad Library`);
      ({ pageId, name } = found);
    }
  }

  // 2. The library's results page: tokens and the first batch.
  const status = o.activeStatus;
  const q = new URLSearchParams({
    active_status: status,
    ad_type: 'all',
    country: o.country,
    is_targeted_country: 'false',
    media_type: 'all',
    search_type: 'page',
    view_all_page_id: pageId,
  });
  o.platforms.forEach((p, i) => q.set(`publisher_platforms[${i}]`, p));
  const libUrl = `${base}/ads/library/?${q}`;
  const libRes = await get(libUrl);
  if (looksLikeLoginWall(libRes)) throw blocked(`Meta answered the Ad Library with a login wall`);
  if (libRes.status >= 400) throw fetchFailed(`the Ad Library answered HTTP ${libRes.status}`);
  const html = libRes.body.toString('utf8');
  const lsd = /"LSD",\[\],\{"token":"([^"]+)"/.exec(html)?.[1] ?? /name="lsd" value="([^"]+)"/.exec(html)?.[1];
  const docId =
    /"(?:queryID|doc_id|docID)"\s*:\s*"(\d+)"[^{}]{0,200}AdLibrarySearchPaginationQuery/.exec(html)?.[1] ??
    /AdLibrarySearchPaginationQuery[^{}]{0,200}"(?:queryID|doc_id|docID)"\s*:\s*"(\d+)"/.exec(html)?.[1];
  const at = html.indexOf('"ad_library_main"');
  const start = at < 0 ? -1 : html.lastIndexOf('{', at);
  let conn = start < 0 ? undefined : connectionOf(objectAt(html, start));
  if (!conn)
    throw fetchFailed(
      'the Ad Library results page carried no first batch of results (ad_library_main); Meta may have changed the page',
    );

  const ads: Ad[] = [];
  const seen = new Set<string>();
  const wanted = new Set(o.platforms);
  const take = (c: Connection) => {
    for (const r of c.results) {
      const ad = adFromWeb(r, base);
      if (!ad || seen.has(ad.id)) continue;
      if (wanted.size < 2 && ad.platforms.length && !ad.platforms.some((p) => wanted.has(p as 'facebook'))) continue;
      seen.add(ad.id);
      if (ads.length < o.limit) ads.push(ad);
    }
  };
  take(conn);
  let total = conn.count;
  // 3. The rest, page by page.
  while (ads.length < o.limit && conn.hasNext && conn.cursor) {
    if (!lsd)
      throw fetchFailed('the Ad Library page carried no lsd token, which its GraphQL endpoint needs for the next page');
    if (!docId)
      throw fetchFailed(
        'the Ad Library page carried no doc_id for AdLibrarySearchPaginationQuery, which the next page needs',
      );
    const variables = {
      activeStatus: status.toUpperCase(),
      adType: 'ALL',
      bylines: [],
      collationToken: null,
      contentLanguages: [],
      countries: [o.country],
      cursor: conn.cursor,
      excludedIDs: [],
      first: 30,
      isTargetedCountry: false,
      location: null,
      mediaType: 'ALL',
      pageIDs: [],
      publisherPlatforms: o.platforms,
      queryString: '',
      regions: [],
      searchType: 'PAGE',
      sortData: null,
      source: null,
      startDate: null,
      viewAllPageID: pageId,
    };
    const form = new URLSearchParams({
      av: '0',
      __user: '0',
      __a: '1',
      lsd,
      fb_api_caller_class: 'RelayModern',
      fb_api_req_friendly_name: 'AdLibrarySearchPaginationQuery',
      variables: JSON.stringify(variables),
      server_timestamps: 'true',
      doc_id: docId,
    });
    const next = await withRateLimit<Connection>(budget, config.retryBaseMs ?? 2000, 'the Ad Library', async () => {
      const res = await http.request(`${base}/api/graphql/`, {
        method: 'POST',
        body: form.toString(),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-fb-lsd': lsd,
          'x-fb-friendly-name': 'AdLibrarySearchPaginationQuery',
          'x-asbd-id': '129477',
        },
        timeoutMs: budget.left(),
        signal: budget.signal,
      });
      if (looksLikeLoginWall(res)) throw blocked('Meta answered the Ad Library GraphQL endpoint with a login wall');
      const j = parseJson(res.body);
      const code = errorCode(j);
      if (code !== undefined && RATE_LIMIT_CODES.has(code)) return { rateLimited: true as const };
      if (code !== undefined)
        throw fetchFailed(
          `the Ad Library GraphQL endpoint answered error ${code}: ${String(j?.errors?.[0]?.message ?? '').slice(0, 200)}`,
        );
      const c = connectionOf(j?.data);
      if (!c) throw fetchFailed(`the Ad Library GraphQL endpoint answered HTTP ${res.status} without results`);
      return { value: c };
    });
    conn = next;
    total ??= next.count;
    take(conn);
  }
  return {
    advertiser: o.advertiser,
    country: o.country,
    page: { id: pageId, name, url: `${base}/${o.advertiser}` },
    ads,
    total: total ?? (conn.hasNext ? null : seen.size),
    source: 'web',
  };
}

async function viaGraph(
  http: HttpClient,
  o: Omit<Required<Omit<MetaAdsOptions, 'signal' | 'timeoutMs'>>, 'pageId'> & { pageId?: string },
  config: MetaAdsConfig,
  budget: Budget,
): Promise<MetaAdsResult> {
  const base = `${config.graphBaseUrl.replace(/\/$/, '')}/${GRAPH_VERSION}`;
  const token = config.accessToken!;
  // The token rides in every URL (percent-encoded: `|` is `%7C`); an app token's secret part counts alone too.
  const redact = createRedactor([token, token.slice(token.indexOf('|') + 1)]);
  const call = (path: string, params: Record<string, string>, what: string) =>
    withRateLimit<{ status: number; json: Json | undefined; code: number | undefined }>(
      budget,
      config.retryBaseMs ?? 2000,
      what,
      async () => {
        const url = `${base}/${path}?${new URLSearchParams({ ...params, access_token: token })}`;
        const res = await http.request(url, { timeoutMs: budget.left(), signal: budget.signal }).catch((e: unknown) => {
          // The URL carries the token: never let it reach an error detail.
          if (!(e instanceof TrawlError)) throw e;
          const fields = Object.fromEntries(
            Object.entries(e.fields).map(([k, v]) => [k, typeof v === 'string' ? redact(v) : v]),
          );
          throw new TrawlError(e.code, redact(e.detail), { fields, retryable: e.retryable });
        });
        const j = parseJson(res.body);
        const code = errorCode(j);
        if (code !== undefined && RATE_LIMIT_CODES.has(code)) return { rateLimited: true as const };
        return { value: { status: res.status, json: j, code } };
      },
    );
  const page = await call(o.pageId ?? o.advertiser, { fields: 'id,name,link' }, 'the Graph API');
  if (page.code === 803 || page.status === 404 || (page.code === 100 && !page.json?.id))
    throw notFound(`no Facebook page "${o.advertiser}"`);
  if (page.code === 190) throw fetchFailed('the Graph API refused META_ACCESS_TOKEN (error 190: expired or invalid)');
  if (page.code !== undefined || !page.json?.id)
    throw fetchFailed(
      `the Graph API answered ${page.code ? `error ${page.code}` : `HTTP ${page.status}`} for page "${o.advertiser}"`,
    );
  const pageId = String(page.json.id);
  const ads: Ad[] = [];
  let after: string | undefined;
  let exhausted = false;
  while (ads.length < o.limit) {
    const params: Record<string, string> = {
      search_page_ids: JSON.stringify([pageId]),
      ad_reached_countries: JSON.stringify([o.country]),
      ad_active_status: o.activeStatus.toUpperCase(),
      publisher_platforms: JSON.stringify(o.platforms.map((p) => p.toUpperCase())),
      fields: GRAPH_FIELDS,
      limit: String(Math.min(100, o.limit - ads.length)),
    };
    if (after) params.after = after;
    const r = await call('ads_archive', params, 'the Graph API');
    if (r.code !== undefined || !Array.isArray(r.json?.data))
      throw fetchFailed(`the Graph API answered ${r.code ? `error ${r.code}` : `HTTP ${r.status}`} for ads_archive`);
    for (const rec of r.json.data as Json[]) {
      const ad = adFromGraph(rec);
      if (ad && ads.length < o.limit) ads.push(ad);
    }
    after = r.json.paging?.cursors?.after;
    if (!r.json.paging?.next || !after || !r.json.data.length) {
      exhausted = true;
      break;
    }
  }
  return {
    advertiser: o.advertiser,
    country: o.country,
    page: {
      id: pageId,
      name: typeof page.json.name === 'string' ? page.json.name : null,
      url: typeof page.json.link === 'string' ? page.json.link : `https://www.facebook.com/${o.advertiser}`,
    },
    ads,
    total: exhausted ? ads.length : null,
    source: 'graph_api',
  };
}

export async function metaAds(
  http: HttpClient,
  options: MetaAdsOptions,
  config: MetaAdsConfig,
): Promise<MetaAdsResult> {
  const o = {
    advertiser: options.advertiser,
    pageId: options.pageId,
    country: options.country,
    activeStatus: options.activeStatus ?? 'active',
    platforms: options.platforms?.length
      ? options.platforms
      : (['facebook', 'instagram'] as ('facebook' | 'instagram')[]),
    limit: options.limit ?? 50,
  };
  const budget = new Budget(options.timeoutMs ?? 60_000, options.signal);
  return config.accessToken ? viaGraph(http, o, config, budget) : viaWeb(http, o, config, budget);
}

/**
 * An advertiser named by a URL a person copies: the Ad Library's own
 * (`…/ads/library/?view_all_page_id=ID&country=XX&active_status=…`) or the page's
 * (`…/{handle}`), on the library's host. Undefined for any other URL.
 */
export function advertiserFromUrl(
  raw: string,
  libraryBaseUrl: string,
): { advertiser: string; pageId?: string; country: string; activeStatus: 'active' | 'inactive' | 'all' } | undefined {
  let u: URL;
  let base: URL;
  try {
    u = new URL(raw);
    base = new URL(libraryBaseUrl);
  } catch {
    return undefined;
  }
  if (u.host.replace(/^(?:www|m)\./, '') !== base.host.replace(/^(?:www|m)\./, '')) return undefined;
  const country = /^(?:[A-Z]{2}|ALL)$/.test(u.searchParams.get('country') ?? '')
    ? u.searchParams.get('country')!
    : 'ALL';
  const status = u.searchParams.get('active_status');
  const activeStatus = status === 'inactive' || status === 'all' ? status : 'active';
  if (/^\/ads\/library\/?$/.test(u.pathname)) {
    const pageId = u.searchParams.get('view_all_page_id');
    return pageId && /^\d{1,20}$/.test(pageId)
      ? { advertiser: `page ${pageId}`, pageId, country, activeStatus }
      : undefined;
  }
  const handle = /^\/([a-z0-9][a-z0-9._-]{0,63})\/?$/i.exec(u.pathname)?.[1];
  return handle ? { advertiser: handle.toLowerCase(), country, activeStatus } : undefined;
}
