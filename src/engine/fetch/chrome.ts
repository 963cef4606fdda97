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
 * Run in every document before its scripts (issue 42, step 3): what headless Chromium lets a page
 * read that no person's Chrome shows, made coherent with the rest of the identity. Learnt from the
 * published evasions (puppeteer-extra-plugin-stealth, undetected-chromedriver) and from what BotD
 * and CreepJS test, written anew:
 * - `navigator.webdriver` is false (the launch flag does it for our Chromium; a remote one may not);
 * - the outer window is larger than the viewport by a browser's toolbars (headless: equal);
 * - `permissions.query({name: "notifications"})` agrees with `Notification.permission`;
 * - WebGL names a GPU, not SwiftShader (a software renderer marks a server);
 * - replaced functions print as native code.
 */
export const FINGERPRINT_SCRIPT = `(() => {
  const masks = new WeakMap();
  const nativeToString = Function.prototype.toString;
  const toString = new Proxy(nativeToString, { apply: (t, self, args) => masks.has(self) ? masks.get(self) : Reflect.apply(t, self, args) });
  masks.set(toString, 'function toString() { [native code] }');
  Object.defineProperty(Function.prototype, 'toString', { value: toString, writable: true, configurable: true, enumerable: false });
  const mask = (fn, name) => { masks.set(fn, 'function ' + name + '() { [native code] }'); return fn; };
  const getter = (obj, prop, get) => { try { Object.defineProperty(obj, prop, { get: mask(get, 'get ' + prop), configurable: true, enumerable: true }); } catch {} };
  try { if (navigator.webdriver !== false) getter(Navigator.prototype, 'webdriver', function () { return false; }); } catch {}
  const mobile = /Mobile/.test(navigator.userAgent);
  if (self === top && typeof window !== 'undefined' && window.outerHeight <= window.innerHeight) {
    // A phone's window is its screen; a desktop's is the viewport plus the toolbars.
    getter(window, 'outerWidth', function () { return mobile ? screen.width : window.innerWidth; });
    getter(window, 'outerHeight', function () { return mobile ? screen.height : window.innerHeight + 85; });
  }
  // Chrome on Android has no PDF viewer and no plugins.
  if (mobile && typeof navigator !== 'undefined' && 'pdfViewerEnabled' in navigator) {
    getter(Navigator.prototype, 'pdfViewerEnabled', function () { return false; });
    const empty = Object.create(PluginArray.prototype, { length: { get: () => 0 } });
    getter(Navigator.prototype, 'plugins', function () { return empty; });
  }
  try {
    // (The saved method has a name of its own: inside a named function expression its name is
    // the wrapper itself, and calling that recursed until the stack ran out.)
    const nativeQuery = Permissions.prototype.query;
    Permissions.prototype.query = mask(function query(desc) {
      if (desc && desc.name === 'notifications' && typeof Notification !== 'undefined') {
        const state = Notification.permission === 'default' ? 'prompt' : Notification.permission;
        return nativeQuery.call(this, desc).then((s) => (s.state === state ? s : Object.create(s, { state: { get: () => state } })));
      }
      return nativeQuery.call(this, desc);
    }, 'query');
  } catch {}
  const VENDOR = mobile ? 'Google Inc. (Qualcomm)' : 'Google Inc. (Intel)';
  const RENDERER = mobile ? 'ANGLE (Qualcomm, Adreno (TM) 740, OpenGL ES 3.2)' : 'ANGLE (Intel, Mesa Intel(R) UHD Graphics 620 (KBL GT2), OpenGL 4.6)';
  for (const C of [typeof WebGLRenderingContext !== 'undefined' && WebGLRenderingContext, typeof WebGL2RenderingContext !== 'undefined' && WebGL2RenderingContext]) {
    if (!C) continue;
    const nativeGetParameter = C.prototype.getParameter;
    C.prototype.getParameter = mask(function getParameter(p) {
      if (p === 37445) return VENDOR;
      if (p === 37446) return RENDERER;
      const v = nativeGetParameter.apply(this, arguments);
      return typeof v === 'string' && /SwiftShader/i.test(v) ? (p === 7936 ? 'WebKit' : 'WebKit WebGL') : v;
    }, 'getParameter');
  }
})();`;
