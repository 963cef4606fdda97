/**
 * Recognise bot walls: pages that withhold the content asked for behind a captcha or a
 * JavaScript challenge. Such a page is not the content, so scraping it must fail (502
 * blocked, no credit) rather than return the wall as markdown.
 *
 * Two kinds of marker (issue 40):
 * - A vendor's interstitial (Cloudflare's "Just a moment…", DataDome, PerimeterX's "Press &
 *   Hold", Imperva's incident id, Akamai's "Reference #", retailers' robot checks) exists only
 *   to stop a visitor: a wall whatever else the page holds.
 * - A challenge widget (Turnstile, reCAPTCHA, hCaptcha, a challenge form) also rides on
 *   ordinary pages, guarding a sign-up, contact, comment or login form beside the content: a
 *   wall only when the page withholds its content (see `withholdsContent`).
 */
import { decodeHTMLStrict } from 'entities';

/** Vendor interstitials: walls regardless of widgets and forms. */
const INTERSTITIALS: [RegExp, string][] = [
  [
    // The challenge page's own script and markup; `cf-chl-widget-…` is the id Turnstile gives
    // its widget on any page that embeds one, so it is no marker.
    /<title>\s*Just a moment\.\.\.\s*<\/title>|cf-browser-verification|_cf_chl_opt|cf_chl_prog|cf-chl-(?!widget)|__cf_chl_(?:f_tk|jschl_tk__|captcha_tk__)=|challenge-platform\/h\/[a-z]\/orchestrate\/(?:chl_page|jsch|captcha|managed)/i,
    'Cloudflare challenge',
  ],
  [/<title>\s*Attention Required! \| Cloudflare\s*<\/title>/i, 'Cloudflare block page'],
  // DataDome's block page says what it is in `dd.rt`: 'i' a device check its script passes on its
  // own (then reloads), 'c' a captcha for a person.
  [/var dd\s*=\s*\{[^}]*['"]rt['"]\s*:\s*['"]i['"]/i, 'DataDome device check'],
  [/captcha-delivery\.com|<title>\s*DataDome/i, 'DataDome captcha'],
  // Kasada's challenge: an empty page (status 429) that starts its SDK and loads
  // `/<uuid>/<uuid>/ips.js?tkrm_alpekz_s1.3=…` (or KP_UIDz). The SDK's start alone is no marker:
  // the sites it guards carry it on their ordinary pages too.
  [/\/ips\.js\?[^"'<>]*(?:KP_UIDz|x-kpsdk|tkrm_alpekz)|KPSDK\.(?:configure|scriptStart)/i, 'Kasada challenge'],
  // Akamai Bot Manager's sensor challenge ("bm-verify") and its interstitial ("sec-if-cpt").
  [/bm-verify|sec-if-cpt|\/_sec\/cp_challenge\//i, 'Akamai challenge'],
  // Vendor scripts (PerimeterX's _pxAppId, Imperva's resource loader) ride on normal pages:
  // only the challenge page's own markup counts.
  [/id=["']px-captcha["']|Press (?:&amp;|&#38;|&) Hold to confirm/i, 'PerimeterX (HUMAN) challenge'],
  [/Incapsula incident ID|_Incapsula_Resource\?[^"'<>]*incident_id=/i, 'Imperva (Incapsula) block page'],
  [/<title>\s*Pardon Our Interruption\s*<\/title>/i, 'Distil/Imperva challenge'],
  [
    /<title>\s*Access Denied\s*<\/title>[\s\S]{0,2000}Reference\s*#\s*\d|errors\.edgesuite\.net\/\d/i,
    'Akamai block page',
  ],
  [
    /Type the characters you see in this image|<title[^>]*>\s*Robot Check\s*<\/title>|api-services-support@amazon\.com/i,
    'Amazon robot check',
  ],
  [
    /<title>\s*Robot or human\?\s*<\/title>|blocked-by-px|Verify your identity[\s\S]{0,200}walmart/i,
    'Walmart robot check',
  ],
];

/** Challenge widgets and browser-check pages: walls only on a page that withholds its content. */
const CHALLENGES: [RegExp, string][] = [
  [/challenges\.cloudflare\.com\/turnstile|class=["'][^"']*\bcf-turnstile\b/i, 'Cloudflare Turnstile'],
  [/g-recaptcha|recaptcha\/(?:api|enterprise)\.js|hcaptcha\.com\/1\/api\.js|class=["'][^"']*\bh-captcha\b/i, 'captcha'],
  [/id=["']challenge-form["']/i, 'challenge form'],
  [
    /<title>\s*(?:Security check|Are you a robot\??|Human verification|Checking your browser)[^<]*<\/title>/i,
    'browser check',
  ],
];

/**
 * Every marker above holds one of these. DataDome's and Kasada's are as their pages write them —
 * `var dd={'rt':…` and `ips.js?KP_UIDz=`/`tkrm_alpekz` — not "var dd" or "ips.js" alone, which
 * ordinary scripts hold (`var ddl = …`, `tooltips.js`) and sent every such page to the full check.
 */
const ANY_SIGNATURE =
  /just a moment|var dd\s*=\s*\{[^}]{0,200}?['"](?:rt|cid)['"]\s*:|kp_uidz|tkrm_alpekz|kpsdk|bm-verify|sec-if-cpt|cp_challenge|challenge-form|challenges\.cloudflare|challenge-platform|cf-browser-verification|cf_chl_|cf-chl-|turnstile|attention required|captcha|incapsula|pardon our interruption|access denied|edgesuite|robot check|robot or human|type the characters|verify your identity|security check|are you a robot|human verification|checking your browser|api-services-support|hold to confirm/i;

/**
 * A page quoting an interstitial's words (a forum thread asking about an "Incapsula incident
 * ID", an article on Cloudflare's "Just a moment" page) is content: the interstitials
 * themselves are small pages. (The guard bot walls had before issue 40: 4 × 3,000 characters.)
 */
const INTERSTITIAL_MAX_TEXT = 12_000;

/**
 * Visible text, outside the challenge's own form, that shows a page has something to read.
 * The walls in test/fixtures/bot-walls show at most ~1,050 characters besides their challenge
 * (Google's "unusual traffic" page, the wordiest: its explanation with the hidden "Why did this
 * happen?" box, IP address, time and URL). Short real pages can show less (the three-post
 * forum thread there, 1,350): they are told apart by their paragraphs and their own forms.
 */
export const WITHHELD_MAX_TEXT = 1500;
/** Paragraphs of real text (≥ PARAGRAPH_MIN_TEXT characters) a wall never holds: its explanation is one or two. */
export const WITHHELD_MAX_PARAGRAPHS = 3;
/** A paragraph this long is a sentence or two of reading, not a button's label. */
const PARAGRAPH_MIN_TEXT = 80;
/**
 * A form holding a challenge is the challenge's own when its text is short (the wall's
 * "Verify you are human" box); a longer one wraps the page (ASP.NET's page-wide form), and
 * its text is the page's.
 */
const CHALLENGE_FORM_MAX_TEXT = 600;

const RAW_BLOCK = /<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi;
const FORM = /<form\b[\s\S]*?<\/form\s*>/gi;
const WIDGET = /captcha|turnstile|challenge-form|data-sitekey/i;
/** Fields a person fills in: what a sign-up, contact, comment or login form asks for. */
const FIELD =
  /<(?:textarea|select)\b[^>]*>|<input\b(?![^>]*\btype=["']?(?:hidden|submit|button|image|reset|checkbox|radio)\b)[^>]*>/gi;
/** A field that is the challenge's own answer ("Type the characters you see"). */
const CHALLENGE_FIELD = /captcha|challenge|solution|answer|verif|response/i;
const PARAGRAPH = /<p\b[^>]*>([\s\S]*?)<\/p\s*>/gi;

/** What a page shows besides its challenge: the signals `withholdsContent` weighs. */
export interface ContentSignals {
  /** Visible characters outside the challenge's own form. */
  text: number;
  /** Paragraphs of at least PARAGRAPH_MIN_TEXT characters outside it (counted up to WITHHELD_MAX_PARAGRAPHS). */
  paragraphs: number;
  /**
   * Fields a person fills in (name, email, password, message) in a form the challenge
   * guards: the challenge protects that form — a sign-up, contact, comment or login form,
   * which is the page's own content — not the page.
   */
  guardedFields: number;
}

export function contentSignals(html: string): ContentSignals {
  const markup = html.replace(RAW_BLOCK, ' ');
  let guardedFields = 0;
  const outside = markup.replace(FORM, (form) => {
    if (!WIDGET.test(form)) return form;
    for (const f of form.match(FIELD) ?? []) if (!CHALLENGE_FIELD.test(f)) guardedFields++;
    return visibleTextLength(form, CHALLENGE_FORM_MAX_TEXT) < CHALLENGE_FORM_MAX_TEXT ? ' ' : form;
  });
  const text = visibleTextLength(outside, WITHHELD_MAX_TEXT * 2);
  let paragraphs = 0;
  for (const m of outside.matchAll(PARAGRAPH)) {
    if (visibleTextLength(m[1], PARAGRAPH_MIN_TEXT) >= PARAGRAPH_MIN_TEXT && ++paragraphs >= WITHHELD_MAX_PARAGRAPHS)
      break;
  }
  return { text, paragraphs, guardedFields };
}

/**
 * A page withholds its content when, besides its challenge, it shows little text, hardly a
 * paragraph, and no form of its own for the challenge to guard. A login page with Turnstile
 * on its form is a login page (the form is what it offers), not a wall.
 */
export const withholdsContent = (s: ContentSignals) =>
  s.guardedFields === 0 && s.text < WITHHELD_MAX_TEXT && s.paragraphs < WITHHELD_MAX_PARAGRAPHS;

/** Numeric entities decoded (Akamai writes "Reference&#32;&#35;18&#46;…"), markup characters kept escaped. */
function decodeNumeric(s: string): string {
  return s.replace(/&#(?:\d{1,7}|x[\da-f]{1,6});|&nbsp;/gi, (e) => {
    const c = e === '&nbsp;' || e === '&NBSP;' ? ' ' : decodeHTMLStrict(e);
    return c === '<' || c === '>' || c === '&' ? e : c;
  });
}

/**
 * What a wall asks for, which decides the next step of the ladder (page.ts):
 * - `script`: a challenge a real browser passes by itself (it runs the vendor's script, gets the
 *   clearance cookie and reloads), or a block that a browser's own fingerprint (TLS, headers)
 *   avoids: render it.
 * - `human`: a captcha or "press and hold": never solved; a better address may not be asked.
 * - `block`: refused by address or rule: a browser does not help, a better proxy may.
 */
export type WallKind = 'script' | 'human' | 'block';

const WALL_KINDS: Record<string, WallKind> = {
  'Cloudflare challenge': 'script',
  'Distil/Imperva challenge': 'script',
  'DataDome device check': 'script',
  'Kasada challenge': 'script',
  'Akamai challenge': 'script',
  'Akamai block page': 'script',
  'browser check': 'script',
  'challenge form': 'script',
  'Cloudflare block page': 'block',
  'Imperva (Incapsula) block page': 'block',
};

export const wallKind = (name: string): WallKind => WALL_KINDS[name] ?? 'human';

/** What on a rendered challenge asks a person to act (a widget to tick, characters to type): a render stops waiting. */
export const ASKS_A_HUMAN =
  /g-recaptcha|class=["'][^"']*\bh-captcha\b|id=["']px-captcha["']|Press (?:&amp;|&) Hold|['"]rt['"]\s*:\s*['"]c['"]|Type the characters|Verify you are human\b/i;

/**
 * Walls that answer with headers, whatever their body (Cloudflare marks its challenge answers
 * `cf-mitigated: challenge`; Kasada's challenge is a 429 with `x-kpsdk-ct`; DataDome's block a
 * 403 with `x-datadome`/`x-dd-b`).
 */
export function detectWallHeaders(status: number, headers: Record<string, string>): string | undefined {
  if (headers['cf-mitigated'] === 'challenge') return 'Cloudflare challenge';
  if (status >= 400 && (headers['x-kpsdk-ct'] !== undefined || headers['x-kpsdk-r'] !== undefined))
    return 'Kasada challenge';
  if (status === 403 && (headers['x-datadome'] !== undefined || headers['x-dd-b'] !== undefined))
    return 'DataDome captcha';
  return undefined;
}

/** The cheap first pass of `detectBotWall`: whether a page holds any wall's marker word. */
export const mayBeWall = (html: string) => ANY_SIGNATURE.test(html);

export function detectBotWall(status: number, html: string): string | undefined {
  // Walls are small pages or error statuses; a large 200 page is only searched near its top.
  const limit = status >= 400 ? 300_000 : 60_000;
  const head = html.length > limit ? html.slice(0, limit) : html;
  // One cheap pass first: every signature contains one of these words, and on a large page
  // it sits near the top (walls are small pages; their markers are in the head).
  if (!ANY_SIGNATURE.test(status >= 400 ? head : head.slice(0, 12_000))) return undefined;
  const plain = head.includes('&') ? decodeNumeric(head) : head;
  // An error status with a wall's marker withheld the page by its status.
  for (const [re, name] of INTERSTITIALS) {
    if (!re.test(plain)) continue;
    if (status >= 400 || visibleTextLength(html, INTERSTITIAL_MAX_TEXT + 1) <= INTERSTITIAL_MAX_TEXT) return name;
  }
  let signals: ContentSignals | undefined;
  for (const [re, name] of CHALLENGES) {
    if (!re.test(plain)) continue;
    if (status >= 400) return name;
    // (Measured on the whole page, and only once a marker matched: it is the slow part.)
    signals ??= contentSignals(html);
    if (withholdsContent(signals)) return name;
    return undefined;
  }
  return undefined;
}

/** The text a reader would see, from raw HTML, without building a DOM (cheap pre-checks only). */
export function visibleText(html: string): string {
  return html
    .replace(/<(script|style|noscript|template)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The close tags of the elements visibleText drops whole, searched from a position. */
const RAW_CLOSE: Record<string, RegExp> = {
  script: /<\/script>/gi,
  style: /<\/style>/gi,
  noscript: /<\/noscript>/gi,
  template: /<\/template>/gi,
};
const RAW_OPEN = /<(script|style|noscript|template)/iy;
const WHITESPACE = /\s/;

/**
 * `visibleText(html.slice(from, to)).length` (for well-formed HTML), without building any
 * string, counting no further than `cap`: a check that only asks "is there little text?"
 * reads a normal page's first few kilobytes and stops. (Measured on the JavaScript-shell
 * check of every `render: auto` scrape: visibleText took 0.43 ms of a 40 KB page and left
 * three page-sized strings of garbage; this takes 0.016 ms.)
 */
export function visibleTextLength(html: string, cap: number, from = 0, to = html.length): number {
  let n = 0;
  let space = false;
  let i = from;
  while (i < to && n < cap) {
    const c = html.charCodeAt(i);
    if (c === 60 /* < */) {
      RAW_OPEN.lastIndex = i;
      const raw = RAW_OPEN.exec(html);
      if (raw && raw.index === i) {
        const close = RAW_CLOSE[raw[1].toLowerCase()];
        close.lastIndex = i + raw[0].length;
        const end = close.exec(html);
        if (end && end.index + end[0].length <= to) {
          i = end.index + end[0].length;
          space = n > 0;
          continue;
        }
      }
      const gt = html.indexOf('>', i + 1);
      if (gt > i + 1 && gt < to) {
        i = gt + 1;
        space = n > 0;
        continue;
      }
    }
    if (c === 32 || (c >= 9 && c <= 13) || (c > 127 && WHITESPACE.test(html[i]))) {
      space = n > 0;
    } else {
      if (space) n++;
      space = false;
      n++;
    }
    i++;
  }
  return Math.min(n, cap);
}
