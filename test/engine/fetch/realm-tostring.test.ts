/**
 * Other frames (issue 42's attack pass): a replaced function printed its source when another
 * realm's `Function.prototype.toString` was called on it — an iframe's, the classic check of
 * CreepJS and the commercial detectors — since each frame's masks were its own. And
 * `RTCPeerConnection` was deleted outright (its STUN is UDP, outside the proxy); no person's Chrome
 * lacks it, so its absence marked the browser. It now exists and sends nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumPool, findChromium } from '../../../src/engine/fetch/browser.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { fetchPage, type Fetchers } from '../../../src/engine/fetch/page.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

const chromium = findChromium();

/** Prints, from the given realm's toString, each replaced function of the top page. */
const CHECK = `
  const native = (ts, f) => { try { return /\\{\\s*\\[native code\\]\\s*\\}$/.test(ts.call(f)); } catch (e) { return 'threw ' + e.name; } };
  const targets = () => ({
    getParameter: WebGLRenderingContext.prototype.getParameter,
    query: Permissions.prototype.query,
    toString: Function.prototype.toString,
    webdriver: Object.getOwnPropertyDescriptor(Navigator.prototype, 'webdriver').get,
    rtc: window.RTCPeerConnection,
    getConfiguration: RTCPeerConnection.prototype.getConfiguration,
  });
  const report = (ts) => { const o = {}; for (const [k, f] of Object.entries(targets())) o[k] = native(ts, f); return o; };`;

const PAGE = `<html><head><title>Frames</title></head><body><article><h1>Frames</h1>
  <p>A public article about kettles, long enough to be the page's main content for the extractor to keep.</p>
  <pre id="out"></pre>
  <script>${CHECK}
    const seen = { own: report(Function.prototype.toString) };
    const blank = document.createElement('iframe');
    document.body.appendChild(blank);
    seen.blank = report(blank.contentWindow.Function.prototype.toString);
    const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:9' }] });
    seen.rtc = { type: typeof RTCPeerConnection, webkit: window.webkitRTCPeerConnection === RTCPeerConnection,
      ctor: pc.constructor === RTCPeerConnection, proto: Object.getPrototypeOf(pc) === RTCPeerConnection.prototype,
      inst: pc instanceof RTCPeerConnection, name: RTCPeerConnection.name,
      servers: pc.getConfiguration().iceServers.length, policy: pc.getConfiguration().iceTransportPolicy };
    pc.createDataChannel('x');
    let candidates = 0;
    pc.onicecandidate = (e) => { if (e.candidate) candidates++; };
    pc.createOffer().then((o) => pc.setLocalDescription(o)).then(() => new Promise((r) => setTimeout(r, 300))).then(() => {
      seen.rtc.offer = /^v=0/.test(pc.localDescription.sdp);
      seen.rtc.candidates = candidates;
      const f = document.createElement('iframe');
      f.src = '/child';
      f.onload = () => {
        seen.child = report(f.contentWindow.Function.prototype.toString);
        document.getElementById('out').textContent = 'SEEN' + JSON.stringify(seen) + 'END';
      };
      document.body.appendChild(f);
    }, (e) => { document.getElementById('out').textContent = 'SEEN' + JSON.stringify({ error: String(e) }) + 'END'; });
  </script></article></body></html>`;

describe.skipIf(!chromium)('replaced functions look native from every frame; WebRTC exists', () => {
  let site: FixtureServer;
  let http: HttpClient;
  let fetchers: Fetchers;
  beforeAll(async () => {
    site = await startFixtureServer({ '/': PAGE, '/child': '<html><body><p>child</p></body></html>' });
    http = new HttpClient({ allowPrivateNetwork: true });
    fetchers = { http, browser: new ChromiumPool({ http }) };
  });
  afterAll(async () => {
    await fetchers?.browser?.close();
    await http?.close();
    await site?.close();
  });

  it("the page's, a blank iframe's and a same-origin iframe's toString print them as native code", async () => {
    const page = await fetchPage(fetchers, site.url, {
      render: 'browser',
      timeoutMs: 20_000,
      waitFor: '#out:not(:empty)',
    });
    const m = /SEEN(\{.*\})END/.exec((page.text ?? '').replace(/&quot;/g, '"'));
    expect(m, page.text).toBeTruthy();
    const seen = JSON.parse(m![1]) as Record<string, Record<string, unknown>>;
    expect(seen.error).toBeUndefined();
    const all = { getParameter: true, query: true, toString: true, webdriver: true, rtc: true, getConfiguration: true };
    expect(seen.own).toEqual(all);
    expect(seen.blank).toEqual(all);
    expect(seen.child).toEqual(all);
    expect(seen.rtc).toMatchObject({
      type: 'function',
      webkit: true,
      ctor: true,
      proto: true,
      inst: true,
      name: 'RTCPeerConnection',
      // What the page asked for, though nothing is gathered: no candidate, no packet.
      servers: 1,
      policy: 'all',
      offer: true,
      candidates: 0,
    });
  }, 40_000);
});
