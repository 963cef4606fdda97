/**
 * Screenshots with a pixel cap and a byte cap that hold for every shape of page (issue 39): the
 * viewport, a full page however tall or wide, each step's. A full page is cut at 3,840 × 16,384
 * CSS px (the contract's height; the widest viewport), then scaled down when it holds more than
 * MAX_SCREENSHOT_PIXELS; a picture over the byte cap is taken again, smaller, in the format asked
 * (its URL and content type stay what the caller asked for). What was cut or scaled is said in a
 * note the answer carries as a warning. Scaled pictures are rendered at that scale by Chromium
 * (the DevTools capture's clip scale): text stays sharp and no full-size bitmap comes to us.
 */
import type { Page, PageScreenshotOptions } from 'playwright-core';

export type ImageFormat = 'png' | 'jpeg';

export interface ScreenshotSpec {
  fullPage: boolean;
  format: ImageFormat;
}

export interface Shot {
  bytes: Buffer;
  /** The format asked for, or JPEG when the PNG was over the byte cap. */
  format: ImageFormat;
  /** What was cut or scaled, for the answer's warnings (absent: the picture is the page as shown). */
  note?: string;
}

/** A full-page screenshot stops here (the contract's cap; Chromium's own texture limit per side too). */
export const MAX_FULL_PAGE_HEIGHT = 16_384;
/** …and at the widest viewport: a page can be made arbitrarily wide, and Chromium paints all of it (GBs). */
export const MAX_FULL_PAGE_WIDTH = 3840;
/**
 * Pixels of one picture at most: the contract's full page at the default viewport (1280 × 16,384),
 * so such a page is never scaled and a wider one is scaled to the same area (3,840 × 16,384 →
 * 58 %, 2,217 × 9,459). At this size a PNG of noise, the worst case (3 bytes a pixel), is 60 MB
 * and takes ~3–5 s, ~300 MB of the service's memory and up to ~0.5 s of its event loop (Playwright
 * decodes the answer on the main thread) before the byte cap's retake; the attack's 3,840 × 16,384
 * was 189 MB and 2.65 GB.
 */
export const MAX_SCREENSHOT_PIXELS = 1280 * MAX_FULL_PAGE_HEIGHT;
/** TRAWL_SCREENSHOT_MAX_MB's default: a full page of ordinary content is 1–5 MB as PNG. */
export const DEFAULT_SCREENSHOT_MAX_BYTES = 10 * 2 ** 20;
/** Takes after the first when a picture is over the byte cap; the last one is sure to fit. */
const RETAKES = 2;
/** No picture takes more than this a pixel (PNG of noise: 3.01 measured, opaque RGB; JPEG q80 of noise: 0.63). */
const WORST_BYTES_PER_PIXEL = 4;
/** Room for a file's headers and chunks beside its pixels. */
const HEADROOM = 64 * 1024;
/** A retake aims this far under the cap (sizes do not shrink exactly with the area). */
const AIM = 0.9;
export const JPEG_QUALITY = 80;

// Page code is given as text: the service is compiled without the DOM's types.
const PAGE_SIZE = `(() => {
  const d = document.documentElement, b = document.body;
  return { width: Math.max(d.clientWidth, d.scrollWidth, b ? b.scrollWidth : 0), height: Math.max(d.scrollHeight, b ? b.scrollHeight : 0) };
})()`;
/** What a scaled capture needs of the page: web fonts loaded (as Playwright's own captures wait), the pixel ratio, the scroll offset. */
const CAPTURE_STATE = `(async () => {
  await Promise.race([document.fonts.ready, new Promise((r) => setTimeout(r, 1000))]);
  return { dpr: devicePixelRatio || 1, touch: navigator.maxTouchPoints > 0, x: scrollX, y: scrollY };
})()`;

interface Rect {
  width: number;
  height: number;
}

const count = (n: number) => Math.round(n).toLocaleString('en-US');
const mib = (n: number) => `${Math.round((n / 2 ** 20) * 10) / 10} MiB`;

/** A timeout shaped like Playwright's (callers recognise "Timeout … exceeded"). */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const out = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const e = new Error(`Timeout ${ms}ms exceeded while taking the screenshot`);
      e.name = 'TimeoutError';
      reject(e);
    }, ms);
  });
  return Promise.race([p, out]).finally(() => clearTimeout(timer));
}

/** At scale 1: Playwright's own capture (its waits and clip, in CSS pixels). */
function shootAsIs(
  page: Page,
  fullPage: boolean,
  format: ImageFormat,
  clip: Rect | undefined,
  ms: number,
): Promise<Buffer> {
  // caret 'initial': no style is injected and removed around the capture (two round trips fewer).
  const o: PageScreenshotOptions = {
    type: format,
    scale: 'css',
    caret: 'initial',
    timeout: Math.max(1, ms),
    ...(format === 'jpeg' ? { quality: JPEG_QUALITY } : {}),
  };
  if (fullPage) {
    o.fullPage = true;
    if (clip) o.clip = { x: 0, y: 0, ...clip };
  }
  return page.screenshot(o);
}

/** Scaled: the DevTools capture with a clip scale, as Playwright's own capture does it at scale 1. */
async function shootScaled(
  page: Page,
  fullPage: boolean,
  format: ImageFormat,
  area: Rect,
  scale: number,
  ms: number,
): Promise<Buffer> {
  const deadline = Date.now() + ms;
  const left = () => Math.max(1, deadline - Date.now());
  const cdp = await within(page.context().newCDPSession(page), left());
  try {
    const s = (await within(page.evaluate(CAPTURE_STATE), left())) as {
      dpr: number;
      touch: boolean;
      x: number;
      y: number;
    };
    const r = (await within(
      cdp.send('Page.captureScreenshot', {
        format,
        ...(format === 'jpeg' ? { quality: JPEG_QUALITY } : {}),
        // A viewport's picture is where the page is scrolled to; a full page's from its top.
        clip: { x: fullPage ? 0 : s.x, y: fullPage ? 0 : s.y, ...area, scale: scale / s.dpr },
        captureBeyondViewport: fullPage,
      }),
      left(),
    )) as { data: string };
    // Chromium drops touch emulation after a capture beyond the viewport (Playwright restores it too).
    if (fullPage && s.touch)
      await within(cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true }), left()).catch(() => undefined);
    return Buffer.from(r.data, 'base64');
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

/** What the bytes are (a picture over the cap as PNG is made a JPEG). */
export const imageFormatOf = (bytes: Buffer): ImageFormat => (bytes[0] === 0xff && bytes[1] === 0xd8 ? 'jpeg' : 'png');

/**
 * A screenshot in CSS pixels (a mobile page's is its viewport's size, not its device pixels'),
 * within MAX_SCREENSHOT_PIXELS and `maxBytes`. The picture is only ever made smaller, never cut
 * further than a full page's sides.
 */
export async function capture(
  page: Page,
  spec: ScreenshotSpec,
  timeoutMs: number,
  maxBytes = DEFAULT_SCREENSHOT_MAX_BYTES,
): Promise<Shot> {
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  let area: Rect;
  let cutNote: string | undefined;
  if (spec.fullPage) {
    const size = (await page.evaluate(PAGE_SIZE)) as Rect;
    area = { width: Math.min(size.width, MAX_FULL_PAGE_WIDTH), height: Math.min(size.height, MAX_FULL_PAGE_HEIGHT) };
    if (area.width < size.width || area.height < size.height)
      cutNote = `the page is ${count(size.width)} × ${count(size.height)} CSS px; the full-page screenshot holds its top left ${count(area.width)} × ${count(area.height)} (at most ${count(MAX_FULL_PAGE_WIDTH)} × ${count(MAX_FULL_PAGE_HEIGHT)})`;
  } else area = page.viewportSize() ?? { width: 1280, height: 800 };
  const pixels = area.width * area.height;
  let scale = Math.min(1, Math.sqrt(MAX_SCREENSHOT_PIXELS / pixels));
  // (Chromium rounds a scaled side up: the cap holds for the sides it makes.)
  while (scale < 1 && Math.ceil(area.width * scale) * Math.ceil(area.height * scale) > MAX_SCREENSHOT_PIXELS)
    scale *= 0.999;
  const limits: string[] = scale < 1 ? [`${count(MAX_SCREENSHOT_PIXELS)} pixels`] : [];
  let format = spec.format;
  let asPng: number | undefined;
  let bytes: Buffer;
  for (let retakes = 0; ;) {
    bytes =
      scale >= 1
        ? await shootAsIs(page, spec.fullPage, format, cutNote ? area : undefined, left())
        : await shootScaled(page, spec.fullPage, format, area, scale, left());
    if (bytes.length <= maxBytes) break;
    // Over the cap as PNG: the same picture as a JPEG first (photos and noise take a fifth of
    // the bytes), so a person gets all its pixels; then smaller.
    if (format === 'png') {
      asPng = bytes.length;
      format = 'jpeg';
      continue;
    }
    if (retakes === RETAKES)
      throw new Error(`the screenshot was still ${mib(bytes.length)} at ${Math.round(scale * 100)} % of its size`);
    if (!limits.includes(mib(maxBytes))) limits.push(mib(maxBytes));
    // Sizes shrink about with the area; the last take is small enough whatever the page holds.
    scale *= Math.sqrt((AIM * maxBytes) / bytes.length);
    if (++retakes === RETAKES)
      scale = Math.min(scale, Math.sqrt(Math.max(0, maxBytes - HEADROOM) / WORST_BYTES_PER_PIXEL / pixels));
  }
  const jpegNote =
    asPng !== undefined
      ? `the screenshot is a JPEG (quality ${JPEG_QUALITY}): as PNG it was ${mib(asPng)}, over the ${mib(maxBytes)} a screenshot may take`
      : undefined;
  const scaledNote =
    scale < 1
      ? `the screenshot was scaled to ${Math.max(1, Math.round(scale * 100))} % (${count(area.width * scale)} × ${count(area.height * scale)} px) to stay within ${limits.join(' and ')}`
      : undefined;
  const note = [cutNote, jpegNote, scaledNote].filter(Boolean).join('; ');
  return note ? { bytes, format, note } : { bytes, format };
}
