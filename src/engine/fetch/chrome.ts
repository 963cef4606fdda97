/**
 * The browser Trawl says it is (issue 42): one Chrome, the same on the HTTP path and in Chromium.
 * A request that claims Chrome in its User-Agent but lacks the client hints, `Sec-Fetch-*` and
 * header order Chrome sends for that User-Agent is the first thing header heuristics (Akamai Bot
 * Manager, DataDome, Cloudflare's bot score) flag; so is a tool token in the User-Agent. The
 * operator may still add one (`TRAWL_USER_AGENT_TOKEN`), at the cost of being recognised.
 *
 * The version is the Debian Chromium this image ships (`chromium --version`: 156), so what the
 * HTTP path claims is what a render shows; the brand list is greased as Chrome greases it
 * (components/embedder_support/user_agent_utils.cc: the seed is the major version).
 */

import { workerScript } from './stealth-script.js';

export const CHROME_MAJOR = 156;

export interface ChromeIdentity {
  userAgent: string;
  /** `sec-ch-ua`, as Chrome writes it. */
  brands: { brand: string; version: string }[];
  mobile: boolean;
  /** `sec-ch-ua-platform` ("Linux", "Android"). */
  platform: string;
  /** navigator.platform for that device. */
  navigatorPlatform: string;
}

const GREASE_CHARS = [' ', '(', ':', '-', '.', '/', ')', ';', '=', '?', '_'];
const GREASE_VERSIONS = ['8', '99', '24'];
const ORDERS = [
  [0, 1, 2],
  [0, 2, 1],
  [1, 0, 2],
  [1, 2, 0],
  [2, 0, 1],
  [2, 1, 0],
];

/** Chrome's brand list for a major version: a GREASE brand, "Chromium" and "Google Chrome", in the version's order. */
export function chromeBrands(major = CHROME_MAJOR): { brand: string; version: string }[] {
  const grease = {
    brand: `Not${GREASE_CHARS[major % 11]}A${GREASE_CHARS[(major + 1) % 11]}Brand`,
    version: GREASE_VERSIONS[major % 3],
  };
  const list = [
    grease,
    { brand: 'Chromium', version: String(major) },
    { brand: 'Google Chrome', version: String(major) },
  ];
  const order = ORDERS[major % 6];
  const out: { brand: string; version: string }[] = [];
  for (let i = 0; i < 3; i++) out[order[i]] = list[i];
  return out;
}

/** `"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"`. */
export const secChUa = (brands: { brand: string; version: string }[]) =>
  brands.map((b) => `"${b.brand}";v="${b.version}"`).join(', ');

/** Desktop Chrome on Linux, or a Pixel 8 when mobile; `token` appended when the operator asks for one. */
export function chromeIdentity(mobile = false, token?: string, major = CHROME_MAJOR): ChromeIdentity {
  // Chrome's reduced User-Agent: the minor version is always 0.0.0.
  const version = `${major}.0.0.0`;
  const base = mobile
    ? `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version} Mobile Safari/537.36`
    : `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version} Safari/537.36`;
  return {
    userAgent: token ? `${base} ${token}` : base,
    brands: chromeBrands(major),
    mobile,
    platform: mobile ? 'Android' : 'Linux',
    navigatorPlatform: mobile ? 'Linux armv81' : 'Linux x86_64',
  };
}

/** Whether this Node can decode zstd (Chrome ≥ 123 offers it; a client must not offer what it cannot read). */
const ZSTD = false;

export const CHROME_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';

/**
 * The headers of a top-level navigation typed into Chrome's address bar, in Chrome's order (undici
 * writes Host and Connection first, as Chrome does). Names are lower-case so that a caller's own
 * header replaces the default in place rather than doubling it.
 */
export function navigationHeaders(identity: ChromeIdentity, acceptLanguage = 'en-US,en;q=0.9'): Record<string, string> {
  return {
    'sec-ch-ua': secChUa(identity.brands),
    'sec-ch-ua-mobile': identity.mobile ? '?1' : '?0',
    'sec-ch-ua-platform': `"${identity.platform}"`,
    'upgrade-insecure-requests': '1',
    'user-agent': identity.userAgent,
    accept: CHROME_ACCEPT,
    'sec-fetch-site': 'none',
    'sec-fetch-mode': 'navigate',
    'sec-fetch-user': '?1',
    'sec-fetch-dest': 'document',
    'accept-encoding': ZSTD ? 'gzip, deflate, br, zstd' : 'gzip, deflate, br',
    'accept-language': acceptLanguage,
  };
}

/**
 * What `navigator.userAgentData` and the high-entropy client hints say, for the DevTools override
 * (Emulation.setUserAgentOverride's `userAgentMetadata`): the same brands as `sec-ch-ua`.
 */
export function userAgentMetadata(identity: ChromeIdentity, fullVersion: string) {
  return {
    brands: identity.brands,
    fullVersionList: identity.brands.map((b) => ({
      brand: b.brand,
      version: /Brand/.test(b.brand) ? `${b.version}.0.0.0` : fullVersion,
    })),
    fullVersion,
    platform: identity.platform,
    platformVersion: identity.mobile ? '14.0.0' : '6.1.0',
    architecture: identity.mobile ? '' : 'x86',
    bitness: identity.mobile ? '' : '64',
    model: identity.mobile ? 'Pixel 8' : '',
    mobile: identity.mobile,
    wow64: false,
  };
}

/**
 * The DevTools override of a render's page (its User-Agent, languages, brands and hints), and what
 * its workers are given (realms.ts): the same override and the worker's fingerprint script.
 */
export function identitySetup(identity: ChromeIdentity, fullVersion: string, languages: string[]) {
  const override = {
    userAgent: identity.userAgent,
    acceptLanguage: languages.join(','),
    platform: identity.navigatorPlatform,
    userAgentMetadata: userAgentMetadata(identity, fullVersion),
  };
  const worker = { userAgent: identity.userAgent, platform: identity.navigatorPlatform, languages };
  return { override, realms: { override, workerScript: workerScript(worker) } };
}

// The script every realm runs before the page's own (stealth-script.ts); callers found it here first.
export { FINGERPRINT_SCRIPT } from './stealth-script.js';
