/** HTML for the dashboard: one escaping function, one layout. Every value goes through `esc`. */
export const esc = (v: unknown): string =>
  String(v ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** A template tag: interpolations are escaped unless wrapped in `raw()`. */
export class Raw {
  constructor(readonly html: string) {}
}
export const raw = (html: string) => new Raw(html);
export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0];
  values.forEach((v, i) => {
    out +=
      (Array.isArray(v)
        ? v.map((x) => (x instanceof Raw ? x.html : esc(x))).join('')
        : v instanceof Raw
          ? v.html
          : esc(v)) + strings[i + 1];
  });
  return new Raw(out);
}

const NAV = [
  ['/', 'Overview'],
  ['/monitors', 'Monitors'],
  ['/channels', 'Channels'],
  ['/jobs', 'Jobs'],
  ['/playground', 'Playground'],
  ['/keys', 'API keys'],
  ['/secret', 'Webhook secret'],
  ['/account', 'Account'],
] as const;

export function page(opts: {
  title: string;
  path?: string;
  email?: string;
  csrf?: string;
  body: Raw;
  notice?: { kind: 'ok' | 'error'; text: string };
}): string {
  const nav = opts.email
    ? html`<header class="top"><span class="brand">Trawl</span><nav aria-label="Main">${NAV.map(([href, label]) => html` <a href="${href}" ${raw(opts.path === href ? 'aria-current="page"' : '')}>${label}</a>`)}</nav>
<form method="post" action="/logout"><input type="hidden" name="csrf" value="${opts.csrf}"><span class="muted" style="color:#cbd5e1">${opts.email}</span> <button class="secondary" type="submit">Log out</button></form></header>`
    : html`<header class="top"><span class="brand">Trawl</span></header>`;
  const notice = opts.notice
    ? html`<div class="notice ${opts.notice.kind}" role="${opts.notice.kind === 'error' ? 'alert' : 'status'}">${opts.notice.text}</div>`
    : raw('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(opts.title)} · Trawl</title><link rel="icon" href="/assets/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/assets/app.css"><link rel="stylesheet" href="/assets/uPlot.min.css"></head>
<body>${nav.html}<main id="main"><h1>${esc(opts.title)}</h1>${notice.html}${opts.body.html}</main>
<script src="/assets/uPlot.iife.min.js" defer></script><script src="/assets/app.js" defer></script></body></html>`;
}
