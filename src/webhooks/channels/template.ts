/**
 * The notification templates' language: `{{ path }}` (a dotted name such as `monitor.name`,
 * `page.url`, `this.field`), `{{#each list}}…{{/each}}` and `{{#if value}}…{{else}}…{{/if}}`.
 * Written here rather than taken from mustache/handlebars because those resolve a name through
 * the prototype chain (`{{constructor}}` prints Object's source in mustache.js) and escape for
 * HTML only: here a name is read from the data's own properties alone, a segment never reaches
 * `__proto__`/`constructor`/`prototype`, there is no raw (`{{{ }}}`) output, and every value is
 * escaped by the caller's `escape` (HTML for email, mrkdwn for Slack …). No code runs.
 */

export type Escape = (s: string) => string;

type Node =
  | { t: 'text'; v: string }
  | { t: 'var'; path: string[] }
  | { t: 'each'; path: string[]; body: Node[] }
  | { t: 'if'; path: string[]; then: Node[]; else: Node[] };

export class TemplateError extends Error {
  override name = 'TemplateError';
}

/** Longest template accepted, and the most output one render makes (a runaway each is cut). */
export const MAX_TEMPLATE_CHARS = 4000;
const MAX_OUTPUT_CHARS = 64 * 1024;
/** Blocks inside blocks: each-in-each multiplies the work, so the depth is kept small. */
export const MAX_NESTING = 4;
/** Nodes one render visits at most: nested each over long lists with no output would otherwise spin for ever. */
const MAX_STEPS = 200_000;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const TAG = /\{\{\s*([#/]?)\s*([^{}]*?)\s*\}\}/g;

function pathOf(raw: string, at: number): string[] {
  const parts = raw.split('.');
  if (!raw || parts.some((p) => !NAME.test(p) || FORBIDDEN.has(p)))
    throw new TemplateError(`"{{${raw}}}" at character ${at}: a name is letters, digits and _ joined by dots`);
  return parts;
}

/** Parses a template, or throws TemplateError saying where and why. */
export function parseTemplate(src: string): Node[] {
  if (src.length > MAX_TEMPLATE_CHARS) throw new TemplateError(`must be at most ${MAX_TEMPLATE_CHARS} characters`);
  if (src.includes('{{{')) throw new TemplateError('"{{{" (raw output) is not part of the language: use "{{ name }}"');
  const root: Node[] = [];
  const stack: { node: Node & { t: 'each' | 'if' }; into: Node[]; at: number }[] = [];
  let into = root;
  let last = 0;
  for (const m of src.matchAll(TAG)) {
    const at = m.index;
    if (at > last) into.push({ t: 'text', v: src.slice(last, at) });
    last = at + m[0].length;
    const [, sigil, inner] = m;
    if (sigil === '#') {
      const [kw, arg = '', ...rest] = inner.split(/\s+/);
      if ((kw !== 'each' && kw !== 'if') || rest.length)
        throw new TemplateError(`"${m[0]}" at character ${at}: a block is {{#each name}} or {{#if name}}`);
      const node: Node & { t: 'each' | 'if' } =
        kw === 'each'
          ? { t: 'each', path: pathOf(arg, at), body: [] }
          : { t: 'if', path: pathOf(arg, at), then: [], else: [] };
      into.push(node);
      stack.push({ node, into, at });
      if (stack.length > MAX_NESTING)
        throw new TemplateError(`"${m[0]}" at character ${at}: blocks nest at most ${MAX_NESTING} deep`);
      into = node.t === 'each' ? node.body : node.then;
    } else if (sigil === '/') {
      const open = stack.pop();
      if (!open || open.node.t !== inner)
        throw new TemplateError(`"${m[0]}" at character ${at} closes no open {{#${inner}}}`);
      into = open.into;
    } else if (inner === 'else') {
      const open = stack[stack.length - 1];
      if (!open || open.node.t !== 'if') throw new TemplateError(`"{{else}}" at character ${at} is outside an {{#if}}`);
      into = open.node.else;
    } else into.push({ t: 'var', path: pathOf(inner, at) });
  }
  if (last < src.length) into.push({ t: 'text', v: src.slice(last) });
  if (stack.length)
    throw new TemplateError(
      `{{#${stack[stack.length - 1].node.t}}} at character ${stack[stack.length - 1].at} is never closed`,
    );
  return root;
}

/** A name's value: own properties of plain objects and arrays only, looked up in the innermost scope that has its first segment. */
function lookup(scopes: unknown[], path: string[]): unknown {
  const own = (o: unknown, k: string) =>
    o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, k)
      ? (o as Record<string, unknown>)[k]
      : undefined;
  const [first, ...rest] = path;
  for (let i = scopes.length - 1; i >= 0; i--) {
    let v = first === 'this' ? scopes[i] : own(scopes[i], first);
    if (v === undefined) continue;
    for (const k of rest) v = own(v, k);
    return v;
  }
  return undefined;
}

const show = (v: unknown): string =>
  v === undefined || v === null
    ? ''
    : typeof v === 'string'
      ? v
      : typeof v === 'number' || typeof v === 'boolean'
        ? String(v)
        : JSON.stringify(v);

const truthy = (v: unknown) => (Array.isArray(v) ? v.length > 0 : !!v);

/** Renders parsed nodes over `data`, every value through `escape`; output over 64 KiB (or past the step budget) is cut. */
export function render(nodes: Node[], data: unknown, escape: Escape): string {
  let out = '';
  let steps = 0;
  let cut = false;
  const walk = (list: Node[], scopes: unknown[]) => {
    for (const n of list) {
      if (out.length > MAX_OUTPUT_CHARS || ++steps > MAX_STEPS) return void (cut = true);
      if (n.t === 'text') out += n.v;
      else if (n.t === 'var') out += escape(show(lookup(scopes, n.path)));
      else if (n.t === 'if') walk(truthy(lookup(scopes, n.path)) ? n.then : n.else, scopes);
      else {
        const list = lookup(scopes, n.path);
        if (Array.isArray(list))
          for (const item of list) {
            // Each turn counts, even over an empty body: a nest of them is the costly case.
            if (++steps > MAX_STEPS || out.length > MAX_OUTPUT_CHARS) return void (cut = true);
            walk(n.body, [...scopes, item]);
          }
      }
    }
  };
  walk(nodes, [data]);
  return cut || out.length > MAX_OUTPUT_CHARS ? `${out.slice(0, MAX_OUTPUT_CHARS)}…` : out;
}

export const renderTemplate = (src: string, data: unknown, escape: Escape): string =>
  render(parseTemplate(src), data, escape);
