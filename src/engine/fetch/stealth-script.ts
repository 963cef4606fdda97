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
 * - replaced functions print as native code.
 * Frames run it through the context's init script; workers through realms.ts, before their script.
 */

/** What a worker's navigator says, when it must be told (the page's identity). */
export interface WorkerIdentity {
  userAgent: string;
  /** navigator.platform ("Linux x86_64"). */
  platform: string;
  languages: string[];
}

const script = (worker: WorkerIdentity | null) => `(() => {
  const WORKER = ${JSON.stringify(worker)};
  const isWindow = typeof window !== 'undefined';
  const masks = new WeakMap();
  const nativeToString = Function.prototype.toString;
  const toString = new Proxy(nativeToString, { apply: (t, self, args) => masks.has(self) ? masks.get(self) : Reflect.apply(t, self, args) });
  masks.set(toString, 'function toString() { [native code] }');
  Object.defineProperty(Function.prototype, 'toString', { value: toString, writable: true, configurable: true, enumerable: false });
  const mask = (fn, name) => { masks.set(fn, 'function ' + name + '() { [native code] }'); return fn; };
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
