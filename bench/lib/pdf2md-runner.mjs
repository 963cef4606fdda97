/**
 * @opendocsg/pdf2md over a list of PDFs, for `npm run eval:pdf`. pdf2md needs Node ≥ 22, so
 * bench/eval-pdf.ts runs this file under the npm `node` package (`npx -y node@22`), never
 * the service. Reads a JSON array of PDF paths on stdin; writes one JSON object on stdout:
 * path → { markdown, seconds } (seconds of conversion alone, the process start excluded).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pdf2md = require('@opendocsg/pdf2md');

let input = '';
for await (const chunk of process.stdin) input += chunk;
const out = {};
for (const path of JSON.parse(input)) {
  const bytes = new Uint8Array(readFileSync(path));
  const t0 = performance.now();
  try {
    const markdown = await pdf2md(bytes);
    out[path] = { markdown, seconds: (performance.now() - t0) / 1000 };
  } catch (e) {
    out[path] = { markdown: '', seconds: (performance.now() - t0) / 1000, error: String(e?.message ?? e) };
  }
}
process.stdout.write(JSON.stringify(out));
