/**
 * `trawl scrape`'s browser-grade flags (contract section 9) turned into a scrape body, checked by
 * the same Zod shapes and cross-field checks as POST /v1/scrape — so the CLI refuses what the API
 * refuses, with the same words. Screenshots are written to files instead of the store.
 */
import { writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import { invalidRequest } from '../errors.js';
import type { FileSink } from '../engine/index.js';

/**
 * One `--action` as a step: JSON (`{"type":"write","selector":"#q","text":"hi"}`) or a shorthand
 * `type:argument` — wait:500, wait:#list, click:#more, click-all:.expand, write:hello, press:Enter,
 * scroll:down, scroll:up:400, scroll:bottom, screenshot, screenshot:full, scrape, js:return document.title.
 */
export function parseAction(spec: string, index: number): Record<string, unknown> {
  const at = `--action ${index + 1}`;
  if (spec.trimStart().startsWith('{')) {
    try {
      return JSON.parse(spec) as Record<string, unknown>;
    } catch (e) {
      throw invalidRequest(`${at}: "${spec.slice(0, 60)}" is not valid JSON (${(e as Error).message})`);
    }
  }
  const colon = spec.indexOf(':');
  const [type, arg] = colon < 0 ? [spec, ''] : [spec.slice(0, colon), spec.slice(colon + 1)];
  switch (type) {
    case 'wait':
      return /^\d+$/.test(arg) ? { type, milliseconds: Number(arg) } : { type, selector: arg };
    case 'click':
      return { type, selector: arg };
    case 'click-all':
      return { type: 'click', selector: arg, all: true };
    case 'write':
      return { type, text: arg };
    case 'press':
      return { type, key: arg };
    case 'scroll': {
      const [direction, amount] = arg.split(':');
      if (direction === 'bottom') return { type, direction: 'down', amount: 'bottom' };
      return {
        type,
        direction: direction || 'down',
        ...(amount ? { amount: amount === 'bottom' ? amount : Number(amount) } : {}),
      };
    }
    case 'screenshot':
      return { type, ...(arg === 'full' ? { full_page: true } : {}) };
    case 'scrape':
      return { type };
    case 'js':
    case 'execute_javascript':
      return { type: 'execute_javascript', script: arg };
    default:
      throw invalidRequest(
        `${at}: "${type}" is not an action; use wait, click, click-all, write, press, scroll, screenshot, scrape or js (or a JSON step)`,
      );
  }
}

/** `Name: value` → [name, value]. */
export function parseHeader(spec: string): [string, string] {
  const i = spec.indexOf(':');
  if (i <= 0) throw invalidRequest(`--header: "${spec.slice(0, 60)}" is not "Name: value"`);
  return [spec.slice(0, i).trim(), spec.slice(i + 1).trim()];
}

/** `name=value` → a cookie for the URL's host. */
export function parseCookie(spec: string): { name: string; value: string } {
  const i = spec.indexOf('=');
  if (i <= 0) throw invalidRequest(`--cookie: "${spec.slice(0, 60)}" is not "name=value"`);
  return { name: spec.slice(0, i).trim(), value: spec.slice(i + 1) };
}

/** `1280x800` → a viewport. */
export function parseViewport(spec: string): { width: number; height: number } {
  const m = /^(\d+)[x×](\d+)$/.exec(spec.trim());
  if (!m) throw invalidRequest(`--viewport: "${spec}" is not WIDTHxHEIGHT such as 1280x800`);
  return { width: Number(m[1]), height: Number(m[2]) };
}

/** The screenshot format a file name asks for (.jpg / .jpeg → jpeg, anything else png). */
export const formatOfFile = (file: string): 'png' | 'jpeg' => (/^\.jpe?g$/i.test(extname(file)) ? 'jpeg' : 'png');

/**
 * Files for the screenshots: the page's to `file` (when a page screenshot was asked), the
 * actions' beside it (`page-action-1.png`, …).
 */
export function fileWriter(file: string | undefined, pageShot: boolean): FileSink {
  const base = file ? file.slice(0, file.length - extname(file).length) : 'screenshot';
  let n = 0;
  let step = 0;
  return {
    async save(bytes, format) {
      const ext = format === 'jpeg' ? (file && /\.jpg$/i.test(file) ? 'jpg' : 'jpeg') : 'png';
      // A PNG over the byte cap comes as a JPEG (the answer's warning says so): named as what it is.
      const page = file && formatOfFile(file) !== format ? `${base}.${ext}` : file;
      const path = n++ === 0 && pageShot && page ? page : `${base}-action-${++step}.${ext}`;
      writeFileSync(path, bytes);
      return { ref: path };
    },
  };
}
