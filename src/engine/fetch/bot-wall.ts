/**
 * Recognise bot walls: captcha and JavaScript challenge pages from the common vendors, and
 * retailers' own robot checks. Such a page is not the content asked for, so scraping it
 * must fail (502 blocked, no credit) rather than return the wall as markdown.
 */
const SIGNATURES: [RegExp, string][] = [
  [
    /<title>\s*Just a moment\.\.\.\s*<\/title>|cf-browser-verification|challenges\.cloudflare\.com\/turnstile|cf_chl_opt|id="challenge-form"/i,
    'Cloudflare challenge',
  ],
  [/<title>\s*Attention Required! \| Cloudflare\s*<\/title>/i, 'Cloudflare block page'],
  [/captcha-delivery\.com|<title>\s*DataDome/i, 'DataDome captcha'],
  // Vendor scripts (PerimeterX's _pxAppId, Imperva's resource loader) ride on normal pages:
  // only the challenge page's own markup counts.
  [/id=["']px-captcha["']|Press (?:&amp;|&) Hold to confirm/i, 'PerimeterX (HUMAN) challenge'],
  [/Incapsula incident ID/i, 'Imperva (Incapsula) block page'],
  [/<title>\s*Pardon Our Interruption\s*<\/title>/i, 'Distil/Imperva challenge'],
  [/<title>\s*Access Denied\s*<\/title>[\s\S]{0,2000}Reference\s*#/i, 'Akamai block page'],
  [
    /Type the characters you see in this image|<title[^>]*>\s*Robot Check\s*<\/title>|api-services-support@amazon\.com/i,
    'Amazon robot check',
  ],
  [
    /<title>\s*Robot or human\?\s*<\/title>|blocked-by-px|Verify your identity[\s\S]{0,200}walmart/i,
    'Walmart robot check',
  ],
  [/g-recaptcha|hcaptcha\.com\/1\/api\.js|recaptcha\/api\.js/i, 'captcha'],
  [
    /<title>\s*(?:Security check|Are you a robot\??|Human verification|Checking your browser)[^<]*<\/title>/i,
    'browser check',
  ],
];

const ANY_SIGNATURE =
  /just a moment|challenge-form|challenges\.cloudflare|cf-browser-verification|cf_chl_opt|attention required|captcha|incapsula incident|pardon our interruption|access denied|robot check|robot or human|type the characters|verify your identity|security check|are you a robot|human verification|checking your browser|api-services-support|hold to confirm/i;

/** Pages larger than this with real text are content that happens to embed a captcha form. */
const WALL_MAX_TEXT = 3000;

export function detectBotWall(status: number, html: string): string | undefined {
  // Walls are small pages or error statuses; a large 200 page is only searched near its top.
  const limit = status >= 400 ? 300_000 : 60_000;
  const head = html.length > limit ? html.slice(0, limit) : html;
  // One cheap pass first: every signature contains one of these words, and on a large page
  // it sits near the top (walls are small pages; their markers are in the head).
  if (!ANY_SIGNATURE.test(status >= 400 ? head : head.slice(0, 12_000))) return undefined;
  let text: number | undefined;
  for (const [re, name] of SIGNATURES) {
    if (!re.test(head)) continue;
    // Vendors' scripts ride along on normal pages: a page with real text is not a wall.
    // (Measured on the whole page, and only once a signature matched: it is the slow part.)
    text ??= visibleText(html).length;
    const generic = name === 'captcha' || name === 'browser check';
    if (status < 400 && text > (generic ? WALL_MAX_TEXT : WALL_MAX_TEXT * 4)) continue;
    return name;
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
