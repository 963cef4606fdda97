/**
 * The contract's ad record, and the mapping of both sources to it: the web Ad Library's
 * GraphQL `collated_results` (snapshot with body/title/cta/media, epoch-second dates,
 * publisher_platform) and the Graph API's `ads_archive` records (plural fields of current
 * versions, singular ones of older versions; ISO dates with a +0000 offset).
 */

export interface Ad {
  id: string;
  status: 'active' | 'inactive';
  platforms: string[];
  started_at: string | null;
  ended_at: string | null;
  body: string | null;
  title: string | null;
  link_url: string | null;
  cta: string | null;
  media: { type: 'image' | 'video'; url: string }[];
  snapshot_url: string | null;
  /** How many ads the library collated into this one (1 when alone). */
  collation_count: number;
  /** Graph API only: ranges as the API gives them. */
  spend?: { lower: number | null; upper: number | null; currency: string | null };
  impressions?: { lower: number | null; upper: number | null };
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a site's untyped JSON

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
const epoch = (v: unknown) => (typeof v === 'number' && v > 0 ? new Date(v * 1000).toISOString() : null);
/** "2019-05-13T15:30:13+0000" → ISO 8601 UTC. */
const isoOf = (v: unknown) => {
  if (typeof v !== 'string' || !v) return null;
  const t = Date.parse(v.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
};
const num = (v: unknown) =>
  v === undefined || v === null || v === '' ? null : Number.isFinite(Number(v)) ? Number(v) : null;
/** A template placeholder left in dynamic creative ("{{product.name}}") is not text. */
const text = (v: unknown) => {
  const s = str(v);
  return s && !/^\{\{[^}]+\}\}$/.test(s) ? s : null;
};

/** One web Ad Library result (a collation's representative). */
export function adFromWeb(r: Json, libraryBase: string): Ad | undefined {
  const id = str(r.ad_archive_id) ?? (typeof r.ad_archive_id === 'number' ? String(r.ad_archive_id) : null);
  if (!id) return undefined;
  const s: Json = r.snapshot ?? {};
  const card: Json = Array.isArray(s.cards) && s.cards.length ? s.cards[0] : {};
  const media: Ad['media'] = [];
  for (const src of [s, ...(Array.isArray(s.cards) ? s.cards : [])] as Json[]) {
    for (const img of (src.images ?? []) as Json[]) {
      const u = str(img.original_image_url) ?? str(img.resized_image_url);
      if (u) media.push({ type: 'image', url: u });
    }
    for (const v of (src.videos ?? []) as Json[]) {
      const u = str(v.video_hd_url) ?? str(v.video_sd_url);
      if (u) media.push({ type: 'video', url: u });
    }
    const cardImage = src !== s ? (str(src.original_image_url) ?? str(src.resized_image_url)) : null;
    if (cardImage) media.push({ type: 'image', url: cardImage });
    const cardVideo = src !== s ? (str(src.video_hd_url) ?? str(src.video_sd_url)) : null;
    if (cardVideo) media.push({ type: 'video', url: cardVideo });
  }
  const active = r.is_active === true;
  return {
    id,
    status: active ? 'active' : 'inactive',
    platforms: ((r.publisher_platform ?? []) as unknown[])
      .filter((p): p is string => typeof p === 'string')
      .map((p) => p.toLowerCase()),
    started_at: epoch(r.start_date),
    // The library gives active ads a scheduled end; an ad has ended only once inactive.
    ended_at: active ? null : epoch(r.end_date),
    body: text(s.body?.text) ?? text(card.body),
    title: text(s.title) ?? text(card.title),
    link_url: str(s.link_url) ?? str(card.link_url),
    cta: str(s.cta_text) ?? str(card.cta_text),
    media: media.filter((m, i) => media.findIndex((x) => x.url === m.url) === i),
    snapshot_url: `${libraryBase.replace(/\/$/, '')}/ads/library/?id=${id}`,
    collation_count: typeof r.collation_count === 'number' && r.collation_count > 1 ? r.collation_count : 1,
  };
}

/** The Graph API puts the caller's access token in `ad_snapshot_url`: never hand it on. */
export function withoutToken(url: unknown): string | null {
  const s = str(url);
  if (!s) return null;
  try {
    const u = new URL(s);
    u.searchParams.delete('access_token');
    return u.href;
  } catch {
    return null;
  }
}

const first = (plural: unknown, singular: unknown) =>
  (Array.isArray(plural) ? text(plural.find((x) => text(x))) : null) ?? text(singular);

/** One Graph API ads_archive record. */
export function adFromGraph(r: Json, now = Date.now()): Ad | undefined {
  const snapshot = withoutToken(r.ad_snapshot_url);
  const id = str(r.id) ?? (snapshot ? new URL(snapshot).searchParams.get('id') : null);
  if (!id) return undefined;
  const ended = isoOf(r.ad_delivery_stop_time);
  const ad: Ad = {
    id,
    status: ended && Date.parse(ended) <= now ? 'inactive' : 'active',
    platforms: ((r.publisher_platforms ?? r.publisher_platform ?? []) as unknown[])
      .filter((p): p is string => typeof p === 'string')
      .map((p) => p.toLowerCase()),
    started_at: isoOf(r.ad_delivery_start_time),
    ended_at: ended && Date.parse(ended) <= now ? ended : null,
    body: first(r.ad_creative_bodies, r.ad_creative_body),
    title: first(r.ad_creative_link_titles, r.ad_creative_link_title),
    // The API gives the link's caption (a domain), not its URL.
    link_url: null,
    cta: null,
    media: [],
    snapshot_url: snapshot,
    collation_count: 1,
  };
  if (r.spend && typeof r.spend === 'object')
    ad.spend = { lower: num(r.spend.lower_bound), upper: num(r.spend.upper_bound), currency: str(r.currency) };
  if (r.impressions && typeof r.impressions === 'object')
    ad.impressions = { lower: num(r.impressions.lower_bound), upper: num(r.impressions.upper_bound) };
  return ad;
}
