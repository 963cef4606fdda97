/**
 * The script every realm of a render runs before the page's own (issue 42, step 3): what headless
 * Chromium lets a page read that no person's Chrome shows, made coherent with the rest of the
 * identity. Learnt from the published evasions (puppeteer-extra-plugin-stealth,
 * undetected-chromedriver) and from what BotD and CreepJS test, written anew:
 * - `navigator.webdriver` is false (the launch flag does it for our Chromium; a remote one may not);
 * - the outer window is larger than the viewport by a browser's toolbars (headless: equal);
 * - `permissions.query({name: "notifications"})` agrees with `Notification.permission`;
 * - WebGL names a GPU, not SwiftShader (a software renderer marks a server), in documents and in
 *   workers' OffscreenCanvas alike;
 * - in a worker, `navigator.userAgent`, `platform` and `languages` say what the page says (a
 *   SharedWorker gets the browser's own, "HeadlessChrome", whatever the page's override);
 * - replaced functions print as native code, also to another frame's `Function.prototype.toString`;
 * - `RTCPeerConnection` exists (its absence marks a tampered browser), and sends nothing.
 * Frames run it through the context's init script; workers through realms.ts, before their script.
 */

import { randomUUID } from 'node:crypto';

/** What a worker's navigator says, when it must be told (the page's identity). */
export interface WorkerIdentity {
  userAgent: string;
  /** navigator.platform ("Linux x86_64"). */
  platform: string;
  languages: string[];
}

/** Names the realms' shared list (Symbol.for): random per process, so no page can ask for it. */
const REALM_KEY = `trawl-${randomUUID()}`;

const script = (worker: WorkerIdentity | null) => `(() => {
  const WORKER = ${JSON.stringify(worker)};
  const isWindow = typeof window !== 'undefined';
  // What replaced functions print. Bound now: a page that later patches WeakMap or Reflect sees nothing.
  const masks = new WeakMap();
  const maskOf = WeakMap.prototype.get.bind(masks);
  const setMask = WeakMap.prototype.set.bind(masks);
  const apply = Reflect.apply, construct = Reflect.construct;
  const nativeToString = Function.prototype.toString;
  // The masks of every same-origin realm of the page, so that an iframe's toString called on the
  // top page's function prints it as native too: one list, the top realm's, handed down to each
  // frame through its parent's toString called with a key the page cannot name.
  const KEY = Symbol.for(${JSON.stringify(REALM_KEY)});
  let realms = [maskOf];
  const toString = new Proxy(nativeToString, { apply: (t, self, args) => {
    if (self === KEY) return realms;
    const own = maskOf(self);
    if (own !== undefined) return own;
    if (typeof self === 'function') for (let i = 0; i < realms.length; i++) { const m = realms[i](self); if (m !== undefined) return m; }
    return apply(t, self, args);
  } });
  setMask(toString, 'function toString() { [native code] }');
  try {
    if (isWindow && self !== top) {
      const list = apply(parent.Function.prototype.toString, KEY, []);
      if (Array.isArray(list)) { list[list.length] = maskOf; realms = list; }
    }
  } catch {}
  Object.defineProperty(Function.prototype, 'toString', { value: toString, writable: true, configurable: true, enumerable: false });
  const mask = (fn, name) => { setMask(fn, 'function ' + name + '() { [native code] }'); return fn; };
  const getter = (obj, prop, get) => { try { Object.defineProperty(obj, prop, { get: mask(get, 'get ' + prop), configurable: true, enumerable: true }); } catch {} };
  if (WORKER && typeof WorkerNavigator !== 'undefined') {
    const N = WorkerNavigator.prototype;
    if (navigator.userAgent !== WORKER.userAgent) {
      getter(N, 'userAgent', function () { return WORKER.userAgent; });
      getter(N, 'appVersion', function () { return WORKER.userAgent.replace(/^Mozilla\\//, ''); });
    }
    if (navigator.platform !== WORKER.platform) getter(N, 'platform', function () { return WORKER.platform; });
    if (WORKER.languages.length && navigator.languages.join() !== WORKER.languages.join()) {
      const languages = Object.freeze(WORKER.languages.slice());
      getter(N, 'languages', function () { return languages; });
      getter(N, 'language', function () { return languages[0]; });
    }
  }
  try { if (isWindow && navigator.webdriver !== false) getter(Navigator.prototype, 'webdriver', function () { return false; }); } catch {}
  const mobile = /Mobile/.test(navigator.userAgent);
  if (isWindow && self === top && window.outerHeight <= window.innerHeight) {
    // A phone's window is its screen; a desktop's is the viewport plus the toolbars.
    getter(window, 'outerWidth', function () { return mobile ? screen.width : window.innerWidth; });
    getter(window, 'outerHeight', function () { return mobile ? screen.height : window.innerHeight + 85; });
  }
  // Chrome on Android has no PDF viewer and no plugins.
  if (isWindow && mobile && 'pdfViewerEnabled' in navigator) {
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
  // WebRTC as Chrome has it, but sending nothing: STUN and ICE checks are UDP, which no HTTP proxy
  // carries (and headless ignores the ip-handling policy). Every connection is made relay-only with
  // no relay server, so no candidate is gathered and no packet leaves; the page's own configuration
  // is what getConfiguration reports.
  if (isWindow && typeof RTCPeerConnection === 'function') {
    const Native = RTCPeerConnection;
    const asked = new WeakMap();
    const quiet = (c) => Object.assign({}, c, { iceServers: [], iceTransportPolicy: 'relay' });
    const PC = mask(new Proxy(Native, { construct: (t, args, nt) => {
      const pc = construct(t, [quiet(args[0]), ...args.slice(1)], nt);
      asked.set(pc, args[0] || {});
      return pc;
    } }), 'RTCPeerConnection');
    const P = Native.prototype;
    const nativeSet = P.setConfiguration, nativeGet = P.getConfiguration;
    P.setConfiguration = mask(function setConfiguration(c) { asked.set(this, c || {}); return nativeSet.call(this, quiet(c)); }, 'setConfiguration');
    P.getConfiguration = mask(function getConfiguration() {
      const c = nativeGet.call(this), a = asked.get(this) || {};
      return Object.assign(c, { iceServers: a.iceServers || [], iceTransportPolicy: a.iceTransportPolicy || 'all' });
    }, 'getConfiguration');
    Object.defineProperty(P, 'constructor', { value: PC, writable: true, configurable: true, enumerable: false });
    for (const k of ['RTCPeerConnection', 'webkitRTCPeerConnection'])
      if (k in window) Object.defineProperty(window, k, { value: PC, writable: true, configurable: true, enumerable: false });
  }
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

/** For the frames of a render (the context's init script): they get the identity from the DevTools override. */
export const FINGERPRINT_SCRIPT = script(null);

/** For a worker of a render (realms.ts), evaluated before its script. */
export const workerScript = (identity: WorkerIdentity) => script(identity);
