/**
 * The scores of opendataloader-bench (github.com/opendataloader-project/opendataloader-bench,
 * MIT), reimplemented from the definitions in its README and evaluator sources:
 *  - NID / NID-S: normalised indel similarity of the whole markdown (markdown tables turned
 *    into HTML first, emphasis markers dropped, whitespace collapsed); NID-S with every
 *    table cut out. 2·LCS / (|a| + |b|), rapidfuzz's fuzz.ratio.
 *  - TEDS / TEDS-S: tree edit distance similarity of the tables (all tables of a document
 *    under one root; th read as td; a cell's colspan/rowspan must match; TEDS compares cell
 *    text by normalised Levenshtein, TEDS-S structure only). 1 − dist / max(nodes).
 *  - MHS / MHS-S: the same similarity on a flat tree of headings (any level), each holding
 *    the text that follows it (text before the first heading under the root).
 * A document scores null on a metric its truth has nothing for (no table, no heading).
 * The tree edit distance is Zhang–Shasha's (the benchmark uses APTED; both compute the
 * optimal distance under the same unit insert/delete and rename costs).
 */
import { parseDocument } from 'htmlparser2';
import type { ChildNode, Element } from 'domhandler';
import { decodeHTML } from 'entities';

// ---------- markdown tables → HTML (what the benchmark does before every metric) ----------

function splitRow(line: string): string[] | undefined {
  const t = line.trim();
  if (!t || !t.includes('|')) return undefined;
  let cells = t.split('|');
  if (t.startsWith('|')) cells = cells.slice(1);
  if (cells.length && t.endsWith('|')) cells = cells.slice(0, -1);
  cells = cells.map((c) => c.trim());
  return cells.length ? cells : undefined;
}

const isSeparator = (cells: string[]) => cells.length > 0 && cells.every((c) => /^[-:]+$/.test(c.replace(/ /g, '')));

function fit(cells: string[], width: number): string[] {
  if (width <= 0 || cells.length === width) return cells;
  // (the benchmark's own repair for a 3-cell header over a wider table: the middle one spans)
  if (cells.length === 3 && width > 3) return [cells[0], ...Array(width - 2).fill(cells[1]), cells[2]];
  if (cells.length < width) return [...cells, ...Array(width - cells.length).fill('')];
  return cells.slice(0, width);
}

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');

/** Lines as Python's str.splitlines(keepends=True) cuts them. */
function splitLinesKeep(s: string): string[] {
  return (
    s
      // eslint-disable-next-line no-control-regex -- Python's splitlines() also breaks at \x1c–\x1e
      .match(/[^\n\r\v\f\x1c-\x1e\x85\u2028\u2029]*(?:\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]|$)/g)!
      .filter((l, i, a) => l !== '' || i < a.length - 1)
  );
}

export function markdownTablesToHtml(md: string): string {
  if (!md) return md;
  const lines = splitLinesKeep(md);
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    let head = splitRow(lines[i]);
    const sep = i + 1 < lines.length ? splitRow(lines[i + 1]) : undefined;
    if (!head || !sep || !isSeparator(sep)) {
      out.push(lines[i++]);
      continue;
    }
    const width = Math.max(head.length, sep.length);
    head = fit(head, width);
    const body: string[][] = [];
    let j = i + 2;
    for (; j < lines.length; j++) {
      const r = splitRow(lines[j]);
      if (!r) break;
      body.push(fit(r, width));
    }
    if (head.every((c) => c === '') && body.length) head = body.shift()!;
    const html = `<table><tr>${head.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>${body.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('')}</table>`;
    const ending = lines[i].match(/(\r\n|\n|\r)$/)?.[1] ?? '';
    out.push(html + ending);
    i = j;
  }
  return out.join('');
}

// ---------- string distances ----------

const codes = (s: string) => Array.from(s, (c) => c.codePointAt(0)!);

/** Length of the longest common subsequence (bit-parallel, Hyyrö). */
function lcs(a: number[], b: number[]): number {
  if (!a.length || !b.length) return 0;
  if (a.length < b.length) [a, b] = [b, a];
  // b is the pattern (bits), a the text.
  const m = b.length;
  const words = Math.ceil(m / 32);
  const peq = new Map<number, Uint32Array>();
  b.forEach((c, i) => {
    let v = peq.get(c);
    if (!v) peq.set(c, (v = new Uint32Array(words)));
    v[i >>> 5] |= 1 << (i & 31);
  });
  const V = new Uint32Array(words).fill(0xffffffff);
  const zero = new Uint32Array(words);
  for (const c of a) {
    const M = peq.get(c) ?? zero;
    let carry = 0;
    for (let k = 0; k < words; k++) {
      const v = V[k];
      const u = v & M[k];
      const sum = (v >>> 0) + (u >>> 0) + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      V[k] = ((sum >>> 0) | (v & ~M[k])) >>> 0;
    }
  }
  let ones = 0;
  for (let i = 0; i < m; i++) if (V[i >>> 5] & (1 << (i & 31))) ones++;
  return m - ones;
}

/** rapidfuzz fuzz.ratio / 100: 2·LCS / (|a| + |b|), 1 for two empty strings. */
export function indelSimilarity(a: string, b: string): number {
  const x = codes(a);
  const y = codes(b);
  if (!x.length && !y.length) return 1;
  return (2 * lcs(x, y)) / (x.length + y.length);
}

/** Levenshtein distance (Myers' bit-parallel algorithm, in 32-bit blocks). */
export function levenshtein(s: string, t: string): number {
  let a = codes(s);
  let b = codes(t);
  if (a.length < b.length) [a, b] = [b, a];
  const m = b.length;
  if (!m) return a.length;
  const words = Math.ceil(m / 32);
  const peq = new Map<number, Uint32Array>();
  b.forEach((c, i) => {
    let v = peq.get(c);
    if (!v) peq.set(c, (v = new Uint32Array(words)));
    v[i >>> 5] |= 1 << (i & 31);
  });
  const Pv = new Uint32Array(words).fill(0xffffffff);
  const Mv = new Uint32Array(words);
  const zero = new Uint32Array(words);
  const lastBit = 1 << ((m - 1) & 31);
  let score = m;
  for (const c of a) {
    const E = peq.get(c) ?? zero;
    let hin = 1;
    for (let k = 0; k < words; k++) {
      let eq = E[k];
      const pv = Pv[k];
      const mv = Mv[k];
      const xv = (eq | mv) >>> 0;
      if (hin < 0) eq |= 1;
      const xh = ((((((eq & pv) >>> 0) + pv) >>> 0) ^ pv) | eq) >>> 0;
      let ph = (mv | ~(xh | pv)) >>> 0;
      let mh = (pv & xh) >>> 0;
      const high = k === words - 1 ? lastBit : 0x80000000;
      const hout = ph & high ? 1 : mh & high ? -1 : 0;
      ph = (ph << 1) >>> 0;
      mh = (mh << 1) >>> 0;
      if (hin < 0) mh |= 1;
      else if (hin > 0) ph |= 1;
      Pv[k] = (mh | ~(xv | ph)) >>> 0;
      Mv[k] = (ph & xv) >>> 0;
      hin = hout;
    }
    score += hin;
  }
  return score;
}

const normalizedLevenshtein = (a: string, b: string) =>
  !a && !b ? 0 : levenshtein(a, b) / Math.max(codes(a).length, codes(b).length, 1);

// ---------- tree edit distance (Zhang–Shasha) ----------

export interface TreeNode {
  tag: string;
  children: TreeNode[];
  [k: string]: unknown;
}

export function treeEditDistance(t1: TreeNode, t2: TreeNode, rename: (a: TreeNode, b: TreeNode) => number): number {
  const post = (t: TreeNode) => {
    const nodes: TreeNode[] = [];
    const lml: number[] = [];
    const walk = (n: TreeNode): number => {
      let first = -1;
      for (const c of n.children) {
        const l = walk(c);
        if (first < 0) first = l;
      }
      nodes.push(n);
      const idx = nodes.length - 1;
      lml.push(first < 0 ? idx : first);
      return lml[idx];
    };
    walk(t);
    const keyroots: number[] = [];
    const seen = new Set<number>();
    for (let i = nodes.length - 1; i >= 0; i--)
      if (!seen.has(lml[i])) {
        keyroots.push(i);
        seen.add(lml[i]);
      }
    return { nodes, lml, keyroots: keyroots.sort((a, b) => a - b) };
  };
  const A = post(t1);
  const B = post(t2);
  const n = A.nodes.length;
  const m = B.nodes.length;
  const cost = new Float64Array(n * m);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) cost[i * m + j] = rename(A.nodes[i], B.nodes[j]);
  const td = new Float64Array(n * m);
  const fd = new Float64Array((n + 1) * (m + 1));
  for (const i of A.keyroots)
    for (const j of B.keyroots) {
      const li = A.lml[i];
      const lj = B.lml[j];
      const w = j - lj + 2;
      const at = (x: number, y: number) => (x - li + 1) * w + (y - lj + 1);
      fd[0] = 0;
      for (let x = li; x <= i; x++) fd[at(x, lj - 1)] = fd[at(x - 1, lj - 1)] + 1;
      for (let y = lj; y <= j; y++) fd[at(li - 1, y)] = fd[at(li - 1, y - 1)] + 1;
      for (let x = li; x <= i; x++)
        for (let y = lj; y <= j; y++) {
          const del = fd[at(x - 1, y)] + 1;
          const ins = fd[at(x, y - 1)] + 1;
          if (A.lml[x] === li && B.lml[y] === lj) {
            const v = Math.min(del, ins, fd[at(x - 1, y - 1)] + cost[x * m + y]);
            fd[at(x, y)] = v;
            td[x * m + y] = v;
          } else {
            fd[at(x, y)] = Math.min(del, ins, fd[at(A.lml[x] - 1, B.lml[y] - 1)] + td[x * m + y]);
          }
        }
    }
  return td[(n - 1) * m + (m - 1)];
}

// ---------- NID ----------

function stripEmphasis(text: string): string {
  let prev: string | undefined;
  while (prev !== text) {
    prev = text;
    text = text.replace(/(\*{1,3}|~~|__|_)(\S(?:[\s\S]*?\S)?)\1/g, '$2');
  }
  return text;
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();
const normalizeNid = (s: string) => collapse(stripEmphasis(s));

export function readingOrder(gt: string, pred: string): { nid: number | null; nidS: number | null } {
  const g = markdownTablesToHtml(gt);
  const gn = normalizeNid(g);
  if (!gn) return { nid: null, nidS: null };
  const p = markdownTablesToHtml(pred);
  const strip = (s: string) => s.replace(/<table[^>]*?>[\s\S]*?<\/table>/gi, ' ');
  return {
    nid: indelSimilarity(gn, normalizeNid(p)),
    nidS: indelSimilarity(normalizeNid(strip(g)), normalizeNid(strip(p))),
  };
}

// ---------- TEDS ----------

const isEl = (n: ChildNode): n is Element => n.type === 'tag' || n.type === 'script' || n.type === 'style';

/** The tables of a markdown text, as parsed elements. */
function tablesOf(mdWithHtml: string): Element[] {
  const out: Element[] = [];
  const walk = (nodes: ChildNode[]) => {
    for (const n of nodes) {
      if (!isEl(n)) continue;
      if (n.name === 'table') out.push(n);
      walk(n.children);
    }
  };
  walk(parseDocument(mdWithHtml, { lowerCaseTags: true }).children);
  return out;
}

/** A cell's content as the benchmark tokenises it: text, and child tags as <b>…</b>. */
function cellContent(el: Element): string {
  let s = '';
  for (const c of el.children) {
    if (c.type === 'text') s += c.data;
    else if (isEl(c)) s += `<${c.name}>${cellContent(c)}</${c.name}>`;
  }
  return s;
}

const normalizeCell = (s: string) => collapse(decodeHTML(s).replace(/<br\s*\/?>/g, '\n'));

function tableTree(el: Element, structureOnly: boolean): { tree: TreeNode; count: number } {
  let count = 0;
  const build = (e: Element): TreeNode => {
    const tag = e.name === 'th' ? 'td' : e.name;
    if (tag === 'td') {
      const content = structureOnly ? '' : normalizeCell(cellContent(e));
      const num = (v: string | undefined) => (v === undefined ? 1 : parseInt(v, 10) || 1);
      count += countElements(e);
      return {
        tag,
        colspan: num(e.attribs.colspan),
        rowspan: num(e.attribs.rowspan),
        content,
        hasContent: !structureOnly && cellContent(e).length > 0,
        children: [],
      };
    }
    const children: TreeNode[] = [];
    for (const c of e.children) {
      if (!isEl(c)) continue;
      // (thead / tbody are removed before the benchmark parses: their rows belong to the table)
      if (c.name === 'thead' || c.name === 'tbody') {
        for (const d of c.children)
          if (isEl(d)) {
            count++;
            children.push(build(d));
          }
        continue;
      }
      count++;
      children.push(build(c));
    }
    return { tag, children };
  };
  const tree = build(el);
  return { tree, count };
}

/** Elements under `e` (descendants, not e itself). */
function countElements(e: Element): number {
  let n = 0;
  for (const c of e.children) if (isEl(c)) n += 1 + countElements(c);
  return n;
}

function tedsOf(gtTables: Element[], predTables: Element[], structureOnly: boolean): number {
  const wrap = (tables: Element[]) => {
    let count = 0;
    const children = tables.map((t) => {
      const { tree, count: c } = tableTree(t, structureOnly);
      count += 1 + c;
      return tree;
    });
    return { tree: { tag: 'table', children } as TreeNode, count };
  };
  const g = wrap(gtTables);
  const p = wrap(predTables);
  const rename = (a: TreeNode, b: TreeNode) => {
    if (a.tag !== b.tag || a.colspan !== b.colspan || a.rowspan !== b.rowspan) return 1;
    if (a.tag === 'td' && (a.hasContent || b.hasContent)) {
      const x = a.content as string;
      const y = b.content as string;
      if (!x && !y) return 0;
      return levenshtein(x, y) / Math.max(codes(x).length, codes(y).length);
    }
    return 0;
  };
  const n = Math.max(g.count, p.count);
  if (!n) return 0;
  return 1 - treeEditDistance(p.tree, g.tree, rename) / n;
}

export function tableSimilarity(gt: string, pred: string): { teds: number | null; tedsS: number | null } {
  const g = tablesOf(markdownTablesToHtml(gt));
  if (!g.length) return { teds: null, tedsS: null };
  const p = tablesOf(markdownTablesToHtml(pred));
  if (!p.length) return { teds: 0, tedsS: 0 };
  return { teds: tedsOf(g, p, false), tedsS: tedsOf(g, p, true) };
}

// ---------- MHS ----------

function headingTree(md: string): TreeNode {
  const root: TreeNode = { tag: 'document', children: [] };
  let container = root;
  let pending: string[] = [];
  const flush = () => {
    const text = collapse(pending.join(' '));
    if (pending.length && text) container.children.push({ tag: 'content', text, children: [] });
    pending = [];
  };
  // eslint-disable-next-line no-control-regex -- as Python's splitlines()
  for (const raw of md.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/)) {
    const m = raw.match(/^(#{1,6})\s+(.*)$/);
    if (m) {
      flush();
      const h: TreeNode = { tag: 'heading', text: collapse(m[2]), children: [] };
      root.children.push(h);
      container = h;
      continue;
    }
    const t = collapse(raw);
    if (t) pending.push(t);
  }
  flush();
  return root;
}

const size = (t: TreeNode): number => 1 + t.children.reduce((s, c) => s + size(c), 0);

export function headingSimilarity(gt: string, pred: string): { mhs: number | null; mhsS: number | null } {
  const g = headingTree(markdownTablesToHtml(gt));
  if (!g.children.some((c) => c.tag === 'heading')) return { mhs: null, mhsS: null };
  const p = headingTree(markdownTablesToHtml(pred));
  if (!p.children.some((c) => c.tag === 'heading')) return { mhs: 0, mhsS: 0 };
  const n = Math.max(size(g), size(p), 1);
  const text = treeEditDistance(g, p, (a, b) =>
    a.tag !== b.tag ? 1 : normalizedLevenshtein((a.text as string) ?? '', (b.text as string) ?? ''),
  );
  const struct = treeEditDistance(g, p, (a, b) => (a.tag !== b.tag ? 1 : 0));
  const clip = (x: number) => Math.max(0, Math.min(1, x));
  return { mhs: clip(1 - text / n), mhsS: clip(1 - struct / n) };
}

// ---------- one document ----------

export interface DocScores {
  nid: number | null;
  nidS: number | null;
  teds: number | null;
  tedsS: number | null;
  mhs: number | null;
  mhsS: number | null;
  /** The benchmark's per-document overall: the mean of the NID, TEDS and MHS it has. */
  overall: number | null;
}

export function scoreDocument(gt: string, pred: string): DocScores {
  const { nid, nidS } = readingOrder(gt, pred);
  const { teds, tedsS } = tableSimilarity(gt, pred);
  const { mhs, mhsS } = headingSimilarity(gt, pred);
  const parts = [nid, teds, mhs].filter((x): x is number => x !== null);
  return {
    nid,
    nidS,
    teds,
    tedsS,
    mhs,
    mhsS,
    overall: parts.length ? parts.reduce((a, b) => a + b, 0) / parts.length : null,
  };
}
