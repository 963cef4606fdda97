/**
 * The request a playground form made, as the API takes it, to copy: curl, TypeScript (fetch) and
 * Python (requests). The key is a placeholder (`trawl_…`), never the account's.
 */
import { html, type Raw } from './html.js';

const KEY = 'trawl_…';

/** The shell's single quotes around a JSON body. */
export function curlOf(url: string, body: unknown): string {
  const json = JSON.stringify(body).replace(/'/g, "'\\''");
  return `curl -s ${url} \\\n  -H "Authorization: Bearer ${KEY}" -H "Content-Type: application/json" \\\n  -d '${json}'`;
}

export function typescriptOf(url: string, body: unknown): string {
  const json = JSON.stringify(body, null, 2).replace(/\n/g, '\n  ');
  return `const res = await fetch(${JSON.stringify(url)}, {
  method: 'POST',
  headers: { Authorization: 'Bearer ${KEY}', 'Content-Type': 'application/json' },
  body: JSON.stringify(${json}),
});
console.log(await res.json());`;
}

/** A JSON value as a Python literal (True, False, None; strings as JSON writes them, which Python reads). */
export function pythonLiteral(v: unknown, indent = ''): string {
  const inner = indent + '    ';
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number' || typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v))
    return v.length ? `[\n${v.map((x) => inner + pythonLiteral(x, inner)).join(',\n')},\n${indent}]` : '[]';
  const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
  return entries.length
    ? `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${pythonLiteral(x, inner)}`).join(',\n')},\n${indent}}`
    : '{}';
}

export function pythonOf(url: string, body: unknown): string {
  return `import requests

res = requests.post(
    ${JSON.stringify(url)},
    headers={"Authorization": "Bearer ${KEY}"},
    json=${pythonLiteral(body, '    ')},
)
print(res.json())`;
}

/** The three, each with its copy button; ids `curl`, `ts`, `python`. */
export function snippets(base: string, path: string, body: unknown): Raw {
  const url = `${base}${path}`;
  const block = (id: string, title: string, code: string) =>
    html`<h3>${title}</h3><pre class="secret code" id="${id}" data-testid="snippet-${id}">${code}</pre><button type="button" class="secondary" data-copy="${id}">Copy</button>`;
  return html`<section class="snippets" aria-label="The same request in code"><h2>The same request</h2>
${block('curl', 'curl', curlOf(url, body))}
${block('ts', 'TypeScript (fetch)', typescriptOf(url, body))}
${block('python', 'Python (requests)', pythonOf(url, body))}</section>`;
}
