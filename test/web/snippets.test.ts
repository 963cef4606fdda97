/** The playground's request snippets: curl, TypeScript and Python say the same body. */
import { describe, expect, it } from 'vitest';
import { curlOf, pythonLiteral, pythonOf, readsOf, typescriptOf } from '../../src/web/snippets.js';

const body = { url: "https://example.com/it's", formats: ['markdown', 'json'], only_main_content: false, schema: null };

describe('snippets', () => {
  it('curl quotes the body for the shell', () => {
    expect(curlOf('http://h/v1/scrape', body)).toContain(`-d '{"url":"https://example.com/it'\\''s"`);
  });
  it('Python gets a literal it reads (True/False/None) with the same values', () => {
    const lit = pythonLiteral(body);
    expect(lit).toContain('"only_main_content": False');
    expect(lit).toContain('"schema": None');
    const back = JSON.parse(
      lit
        .replace(/\bFalse\b/g, 'false')
        .replace(/\bNone\b/g, 'null')
        .replace(/,(\s*[\]}])/g, '$1'),
    );
    expect(back).toEqual(body);
    expect(pythonOf('http://h/v1/scrape', body)).toMatch(/^import requests\n/);
  });
  it('TypeScript posts the JSON with fetch', () => {
    const ts = typescriptOf('http://h/v1/scrape', body);
    expect(ts).toContain('await fetch("http://h/v1/scrape"');
    expect(ts).toContain("'Content-Type': 'application/json'");
  });
  it('reads a job with GET the three ways, the key a placeholder', () => {
    const r = readsOf('http://h/v1/jobs/job_1');
    expect(r.curl).toBe('curl -s http://h/v1/jobs/job_1 \\\n  -H "Authorization: Bearer trawl_…"');
    expect(r.ts).toContain('await fetch("http://h/v1/jobs/job_1", {');
    expect(r.ts).not.toContain('method');
    expect(r.python).toContain('requests.get(\n    "http://h/v1/jobs/job_1",');
  });
});
