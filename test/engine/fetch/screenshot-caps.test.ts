/**
 * Screenshots within their caps for every shape of page (issue 39): a page of noise (what no
 * encoder can shrink) as a full page wide and tall, taller than the contract's cut, as a large
 * viewport, as a step's screenshot, in PNG and in JPEG. Each picture stays within the byte cap and
 * MAX_SCREENSHOT_PIXELS, is still a useful size, and the answer says how it was cut, made a JPEG
 * or scaled. Before, the 3,840 × 16,384 page of noise was a 189 MB PNG.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumPool, findChromium, type RenderOptions } from '../../../src/engine/fetch/browser.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { MAX_SCREENSHOT_PIXELS } from '../../../src/engine/fetch/screenshot.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';
import { startTestService } from '../../helpers/service.js';

const chromium = findChromium();
const CAP = 4 * 2 ** 20;

/**
 * A page of `w` × `h` CSS px of random pixels: a 3,840 × 256 tile of noise repeated down the page
 * (rows repeat 256 rows apart, out of reach of PNG's 32 KiB window). `#ready` once it is painted.
 */
const noisePage = (w: number, h: number) => `<!doctype html><html><head><title>Noise</title></head>
<body style="margin:0"><div id="n" style="width:${w}px;height:${h}px"></div><script>
  const c = document.createElement('canvas'); c.width = 3840; c.height = 256;
  const x = c.getContext('2d'); const d = x.createImageData(3840, 256);
  for (let i = 0; i < d.data.length; i += 65536) crypto.getRandomValues(d.data.subarray(i, i + 65536));
  for (let i = 3; i < d.data.length; i += 4) d.data[i] = 255;
  x.putImageData(d, 0, 0);
  // (A blob: URL: the page's HTML stays small, as a data: URL in its style would not.)
  c.toBlob((blob) => { const img = new Image(); img.src = URL.createObjectURL(blob); img.decode().then(() => {
    document.getElementById('n').style.backgroundImage = 'url(' + img.src + ')';
    requestAnimationFrame(() => requestAnimationFrame(() => { const p = document.createElement('p'); p.id = 'ready'; p.textContent = 'ready'; p.style.cssText = 'position:absolute;top:0;left:0;margin:0'; document.body.append(p); }));
  }); });
</script></body></html>`;

/** Width and height of a PNG (IHDR) or a JPEG (its start-of-frame). */
function imageSize(b: Buffer): { width: number; height: number; type: 'png' | 'jpeg' } {
  if (b.subarray(1, 4).toString() === 'PNG')
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20), type: 'png' };
  expect(b.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  for (let i = 2; i < b.length;) {
    const marker = b[i + 1];
    if (marker >= 0xc0 && marker <= 0xc3)
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7), type: 'jpeg' };
    i += 2 + b.readUInt16BE(i + 2);
  }
  throw new Error('no JPEG frame');
}

describe.skipIf(!chromium)('screenshots within the byte and pixel caps (real Chromium)', () => {
  let site: FixtureServer;
  let http: HttpClient;
  let pool: ChromiumPool;

  beforeAll(async () => {
    site = await startFixtureServer({
      '/wide': noisePage(3840, 16_384),
      '/tall': noisePage(1280, 20_000),
      '/screen': noisePage(3840, 4320),
      '/plain': `<html><body style="margin:0"><div style="height:16384px;background:linear-gradient(#fff,#8af)">Plain tall page</div></body></html>`,
    });
    http = new HttpClient({ allowPrivateNetwork: true });
    pool = new ChromiumPool({ http, screenshotMaxBytes: CAP });
  }, 30_000);
  afterAll(async () => {
    await pool?.close();
    await http?.close();
    await site?.close();
  });

  const render = (path: string, o: Partial<RenderOptions>) =>
    pool.render(`${site.url}${path}`, { timeoutMs: 120_000, waitFor: '#ready', ...o });

  /** Within both caps, and still a picture a person can use (at least `minWidth` px wide). */
  const withinCaps = (b: Buffer, minWidth: number) => {
    const s = imageSize(b);
    expect(b.length).toBeLessThanOrEqual(CAP);
    expect(s.width * s.height).toBeLessThanOrEqual(MAX_SCREENSHOT_PIXELS);
    expect(s.width).toBeLessThanOrEqual(3840);
    expect(s.height).toBeLessThanOrEqual(16_384);
    expect(s.width).toBeGreaterThanOrEqual(minWidth);
    return s;
  };

  it('a full page of noise 3,840 × 16,384 px: a JPEG, scaled, whole, within the caps, and said so', async () => {
    const r = await render('/wide', { screenshot: { fullPage: true, format: 'png' } });
    const s = withinCaps(r.screenshot!, 1000);
    expect(s.type).toBe('jpeg');
    // The whole page is there, only smaller: its shape is kept.
    expect(s.height / s.width).toBeCloseTo(16_384 / 3840, 1);
    expect(r.warnings).toEqual([
      expect.stringMatching(
        /^screenshot: the screenshot is a JPEG \(quality 80\): as PNG it was [\d.]+ MiB, over the 4 MiB a screenshot may take; the screenshot was scaled to \d+ % \(.+ px\) to stay within 20,971,520 pixels and 4 MiB$/,
      ),
    ]);
  }, 150_000);

  it('taller than the cut (20,000 px): cut at 16,384, then made to fit the byte cap, all said', async () => {
    const r = await render('/tall', { screenshot: { fullPage: true, format: 'png' } });
    const s = withinCaps(r.screenshot!, 500);
    expect(s.height / s.width).toBeCloseTo(16_384 / 1280, 0);
    expect(r.warnings![0]).toMatch(
      /^screenshot: the page is 1,280 × 20,000 CSS px; the full-page screenshot holds its top left 1,280 × 16,384 \(at most 3,840 × 16,384\); the screenshot is a JPEG .*; the screenshot was scaled to \d+ % .* to stay within 4 MiB$/,
    );
  }, 150_000);

  it('a viewport of 3,840 × 4,320 px of noise, in JPEG', async () => {
    const r = await render('/screen', {
      screenshot: { fullPage: false, format: 'jpeg' },
      setup: { viewport: { width: 3840, height: 4320 } },
    });
    const s = withinCaps(r.screenshot!, 1000);
    expect(s.type).toBe('jpeg');
    expect(s.width / s.height).toBeCloseTo(3840 / 4320, 1);
    expect(r.warnings).toEqual([expect.stringMatching(/^screenshot: the screenshot was scaled to \d+ % .* 4 MiB$/)]);
  }, 150_000);

  it("each step's screenshot is capped too, and its warning names the step", async () => {
    const r = await render('/wide', {
      actions: [{ type: 'wait', milliseconds: 10 }, { type: 'screenshot', full_page: true }, { type: 'screenshot' }],
    });
    const [full, viewport] = r.actions!.screenshots;
    withinCaps(full, 1000);
    // The viewport's picture (1280 × 800) needs nothing: not scaled, no warning of its own.
    expect(imageSize(viewport)).toMatchObject({ width: 1280, height: 800 });
    expect(r.warnings).toEqual([
      expect.stringMatching(/^actions\[1\]: the screenshot is a JPEG .*; the screenshot was scaled to \d+ %/),
    ]);
  }, 150_000);

  it('an ordinary page at the full-page limit is neither scaled nor warned about', async () => {
    const r = await pool.render(`${site.url}/plain`, {
      timeoutMs: 30_000,
      screenshot: { fullPage: true, format: 'png' },
    });
    expect(imageSize(r.screenshot!)).toMatchObject({ width: 1280, height: 16_384 });
    expect(r.warnings).toBeUndefined();
  }, 60_000);
});

describe.skipIf(!chromium)('a scrape of a page of noise through the service (real Chromium)', () => {
  it('answers with capped files (made JPEGs, their URLs saying so) and warnings for the page and each step', async () => {
    const site = await startFixtureServer({ '/wide': noisePage(3840, 16_384) });
    const svc = await startTestService('sqlite', { TRAWL_SCREENSHOT_MAX_MB: '4' });
    try {
      const { key } = await svc.newKey(5);
      const res = await svc.post(
        '/v1/scrape',
        {
          url: `${site.url}/wide`,
          formats: ['markdown', 'screenshot@full_page'],
          wait_for: '#ready',
          actions: [{ type: 'screenshot', full_page: true }],
          timeout_ms: 120_000,
        },
        key,
      );
      const body = (await res.json()) as Record<string, any>;
      expect(res.status, JSON.stringify(body)).toBe(200);
      for (const url of [body.screenshot, ...body.actions.screenshots]) {
        expect(url).toMatch(/\/v1\/files\/[0-9A-Za-z]{32}\.jpeg$/);
        const file = await fetch(url);
        expect(file.headers.get('content-type')).toBe('image/jpeg');
        const bytes = Buffer.from(await file.arrayBuffer());
        expect(bytes.length).toBeLessThanOrEqual(CAP);
        const s = imageSize(bytes);
        expect(s.width * s.height).toBeLessThanOrEqual(MAX_SCREENSHOT_PIXELS);
      }
      // (Beside the page's own: a page of noise has no text.)
      expect(body.warnings.slice(0, 2)).toEqual([
        expect.stringMatching(/^actions\[0\]: the screenshot is a JPEG .* scaled to \d+ %/),
        expect.stringMatching(/^screenshot: the screenshot is a JPEG .* scaled to \d+ %/),
      ]);
    } finally {
      await svc.stop();
      await site.close();
    }
  }, 240_000);
});
