/**
 * A page's markdown → passages an agent can quote as-is: paragraphs and list items with the
 * markdown syntax and link targets removed, short neighbours under one heading merged,
 * long paragraphs cut at sentence ends.
 */
const MIN = 200;
const MAX = 700;

export function plainText(md: string): string {
  return md
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, '$1')
    .replace(/^#{1,6}\s+/gm, '')
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, '')
    .replace(/^>\s?/gm, '')
    .replace(/^\|?\s*-{3,}.*$/gm, '')
    .replace(/[*_~`]{1,3}([^*_~`\n]+)[*_~`]{1,3}/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, '$1')
    .replace(/\|/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

function splitLong(text: string): string[] {
  if (text.length <= MAX) return [text];
  const out: string[] = [];
  let cur = '';
  for (const s of text.match(/[^.!?。！？]+[.!?。！？]+["'”’)]*\s*|[^.!?。！？]+$/g) ?? [text]) {
    if (cur && cur.length + s.length > MAX) {
      out.push(cur.trim());
      cur = '';
    }
    cur += s;
  }
  if (cur.trim()) out.push(cur.trim());
  return out
    .flatMap((p) => (p.length > MAX * 1.5 ? (p.match(new RegExp(`.{1,${MAX}}(?:\\s|$)`, 'g')) ?? [p]) : [p]))
    .map((p) => p.trim());
}

export function toPassages(markdown: string): string[] {
  const blocks = markdown
    .split(/\n{2,}/)
    .map((b) => b.trim())
    .filter((b) => b && !/^```/.test(b));
  const out: string[] = [];
  let cur = '';
  const flush = () => {
    if (cur.trim()) out.push(...splitLong(cur.trim()));
    cur = '';
  };
  for (const b of blocks) {
    const heading = /^#{1,6}\s/.test(b);
    const text = plainText(b).replace(/\n+/g, ' ');
    if (!text) continue;
    if (heading) {
      flush();
      continue;
    }
    if (cur && cur.length + text.length > MAX) flush();
    cur = cur ? `${cur} ${text}` : text;
    if (cur.length >= MIN) flush();
  }
  flush();
  return out.filter((p) => p.length >= 20);
}
