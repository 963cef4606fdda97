/**
 * The request a playground form made, as the API takes it, to copy: curl, TypeScript (fetch) and
 * Python (requests); and a GET (reading a job) the same three ways. The key is a placeholder
 * (`trawl_…`), never the account's.
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

/** A GET of `url` (a job read): curl, TypeScript and Python. */
export function readsOf(url: string): { curl: string; ts: string; python: string } {
  return {
    curl: `curl -s ${url} \\\n  -H "Authorization: Bearer ${KEY}"`,
    ts: `const res = await fetch(${JSON.stringify(url)}, {
  headers: { Authorization: 'Bearer ${KEY}' },
});
console.log(await res.json());`,
    python: `import requests

res = requests.get(
    ${JSON.stringify(url)},
    headers={"Authorization": "Bearer ${KEY}"},
)
print(res.json())`,
  };
}

function section(title: string, code: { curl: string; ts: string; python: string }): Raw {
  const block = (id: string, name: string, text: string) =>
    html`<h3>${name}</h3><pre class="secret code" id="${id}" data-testid="snippet-${id}">${text}</pre><button type="button" class="secondary" data-copy="${id}">Copy</button>`;
  return html`<section class="snippets" aria-label="${title} in code"><h2>${title}</h2>
${block('curl', 'curl', code.curl)}
${block('ts', 'TypeScript (fetch)', code.ts)}
${block('python', 'Python (requests)', code.python)}</section>`;
}

/** The three, each with its copy button; ids `curl`, `ts`, `python`. */
export function snippets(base: string, path: string, body: unknown): Raw {
  const url = `${base}${path}`;
  return section('The same request', {
    curl: curlOf(url, body),
    ts: typescriptOf(url, body),
    python: pythonOf(url, body),
  });
}

/** Reading something from the API (`GET base+path`) in the three, under `title`. */
export function readSnippets(base: string, path: string, title: string): Raw {
  return section(title, readsOf(`${base}${path}`));
}
