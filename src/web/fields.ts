/**
 * A playground or Jobs form read into the API's request body: only what was filled in, in the
 * JSON types the API takes (numbers, booleans, parsed JSON), so the body's own checks (Zod, the
 * schema compiler) answer as /v1 does, and the body shown as curl is the one that ran.
 */
import { TrawlError } from '../errors.js';
import { html, raw, type Raw } from './html.js';

export type Posted = Record<string, string | string[] | undefined>;

const one = (f: Posted, name: string): string | undefined => {
  const v = f[name];
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s ? s : undefined;
};

export const text = one;

/** A number when it is one; else the text, for the body's check to name. */
export function int(f: Posted, name: string): number | string | undefined {
  const s = one(f, name);
  return s === undefined ? undefined : /^-?\d+$/.test(s) ? Number(s) : s;
}

/** A checkbox: true when ticked; when not, false if the form showed it (`shown`), else absent. */
export function checkbox(f: Posted, name: string, byDefault?: boolean): boolean | undefined {
  const ticked = one(f, name) !== undefined;
  if (one(f, 'shown') === undefined) return undefined;
  return ticked === (byDefault ?? false) ? undefined : ticked;
}

/** A JSON field (a schema, actions): parsed, or a 400 naming it. */
export function json(f: Posted, name: string): unknown {
  const s = one(f, name);
  if (s === undefined) return undefined;
  try {
    return JSON.parse(s);
  } catch (e) {
    throw new TrawlError('invalid_request', `${name}: is not valid JSON (${(e as Error).message})`);
  }
}

/** One entry a line (URLs, paths). */
export function lines(f: Posted, name: string): string[] | undefined {
  const s = one(f, name);
  if (s === undefined) return undefined;
  const out = s
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return out.length ? out : undefined;
}

/** Checkboxes of one name: the values ticked. */
export function many(f: Posted, name: string): string[] | undefined {
  const v = [f[name] ?? []].flat().filter(Boolean) as string[];
  return v.length ? v : undefined;
}

/** wait_for: milliseconds when a number, else a CSS selector. */
export function waitFor(f: Posted): number | string | undefined {
  return int(f, 'wait_for');
}

/** The body without its absent fields (what curl shows). */
export function compact<T extends Record<string, unknown>>(b: T): T {
  return Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)) as T;
}

/** What a form field shows again after a post. */
export const shown = (f: Posted, name: string): string => {
  const v = f[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
};

/** A checkbox, ticked as posted (or by default on a fresh form). */
export const tick = (f: Posted, name: string, byDefault = false): Raw =>
  raw((f.shown === undefined ? byDefault : f[name] !== undefined) ? 'checked' : '');

/** The render choice: left out (the API's default) unless chosen. */
export const renderSelect = (f: Posted, id: string): Raw =>
  html`<label for="${id}">Render<select id="${id}" name="render"><option value="">default</option>${['auto', 'http', 'browser'].map((r) => html`<option ${raw(f.render === r ? 'selected' : '')}>${r}</option>`)}</select></label>`;
