/**
 * The import rule (docs/ARCHITECTURE.md), read from the sources: every relative import of
 * src/**\/*.ts (`from '…'`, `import('…')`) is an edge between two layers, and each layer may import
 * only the ones below it. Surfaces never import one another; engine and store never import each
 * other; Node loads no import cycle. Edges not yet fixed are in ALLOWED, each with its reason: the
 * list may only shrink (an entry no longer needed fails the test too, so it is taken out).
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

type Layer =
  'entry' | 'surface' | 'app' | 'jobs' | 'monitors' | 'webhooks' | 'queue' | 'contract' | 'engine' | 'store' | 'leaf';

/**
 * Files that wire a process or a binary: they may import any layer. runtime.ts builds the service
 * and the worker; server/app.ts hosts the HTTP surfaces (v1, /firecrawl, ops, the dashboard) on one
 * Fastify; cli/index.ts is the `trawl` binary, dispatching to serve, worker, mcp and scrape;
 * mcp/index.ts is the `trawl mcp` process, and mcp/local.ts starts the service inside it when no
 * TRAWL_API_URL is named (its tools still reach it over HTTP, as any client).
 */
const ENTRIES = new Set(['runtime.ts', 'server/app.ts', 'cli/index.ts', 'mcp/index.ts', 'mcp/local.ts']);
const SURFACES = new Set(['server', 'web', 'cli', 'mcp']);
const LEAVES = new Set([
  'errors.ts',
  'config.ts',
  'metrics.ts',
  'redact.ts',
  'answer-cap.ts',
  'memory-trim.ts',
  'sealed.ts',
]);

function layerOf(file: string): Layer {
  if (ENTRIES.has(file)) return 'entry';
  const top = file.split('/')[0];
  if (SURFACES.has(top)) return 'surface';
  if (LEAVES.has(top)) return 'leaf';
  if (['app', 'jobs', 'monitors', 'webhooks', 'queue', 'contract', 'engine', 'store'].includes(top))
    return top as Layer;
  throw new Error(`${file}: in no layer; add it to one (test/architecture.test.ts, docs/ARCHITECTURE.md)`);
}

/** What each layer may import (besides itself). Downward only: surfaces → app → work → contract → engine/store → leaves. */
const MAY: Record<Layer, Layer[]> = {
  entry: ['entry', 'surface', 'app', 'jobs', 'monitors', 'webhooks', 'queue', 'contract', 'engine', 'store', 'leaf'],
  surface: ['app', 'jobs', 'monitors', 'webhooks', 'queue', 'contract', 'engine', 'store', 'leaf'],
  app: ['jobs', 'monitors', 'webhooks', 'queue', 'contract', 'engine', 'store', 'leaf'],
  // Jobs and monitors are two kinds of long work; what they share is below them (webhooks, queue).
  jobs: ['webhooks', 'queue', 'contract', 'engine', 'store', 'leaf'],
  monitors: ['webhooks', 'queue', 'contract', 'engine', 'store', 'leaf'],
  webhooks: ['queue', 'engine', 'store', 'leaf'],
  queue: ['store', 'leaf'],
  // The contract names what the engine takes (formats, action types, schemas): it may read the engine's.
  contract: ['engine', 'leaf'],
  engine: ['leaf'],
  store: ['leaf'],
  leaf: ['leaf'],
};

/**
 * Edges that break the rule today, each with why and what removes it; keys are `from -> to`,
 * paths under src/. None left: the store's adapters of the engine's ports (file sink, result
 * cache) are app/scrape-stores.ts, and the MCP process is an entry. The list may only shrink.
 */
const ALLOWED: Record<string, string> = {};

/**
 * Cycles through type imports only (erased when compiled, so Node loads none of them). None
 * today: the document processor's port (engine/document/processor.ts) and extraction's answer
 * (engine/extract/output.ts) are modules of their own, so the pool, its pipeline and the
 * extractor no longer name each other's types.
 */
const TYPE_CYCLES: string[] = [];

/** Every cycle a depth-first walk meets (each once, from the file first reached), as `a -> b -> a`. */
function cyclesOf(edges: Edge[]): string[] {
  const graph = new Map<string, string[]>();
  for (const e of edges) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    path.push(f);
    for (const t of graph.get(f) ?? []) {
      if (state.get(t) === 'open') cycles.push([...path.slice(path.indexOf(t)), t].join(' -> '));
      else if (!state.has(t)) visit(t);
    }
    path.pop();
    state.set(f, 'done');
  };
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f);
  return cycles;
}

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const IMPORT = /(?:^|[\s;])(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

/** `import { type A, type B } from …`: every name a type, so nothing is loaded. */
function onlyTypes(statement: string): boolean {
  const names = /\{([^}]*)\}/.exec(statement)?.[1];
  if (!names) return false;
  const parts = names
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  return parts.length > 0 && parts.every((n) => n.startsWith('type '));
}

function edgesOf(file: string): Edge[] {
  const text = readFileSync(file, 'utf8');
  const out: Edge[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[3] ?? m[4];
    if (!spec?.startsWith('.')) continue;
    let target = normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts');
    if (!existsSync(target) && existsSync(target.replace(/\.ts$/, '/index.ts')))
      target = target.replace(/\.ts$/, '/index.ts');
    if (!existsSync(target)) continue; // a non-TypeScript asset
    out.push({ from: relative(SRC, file), to: relative(SRC, target), typeOnly: !!m[2] || onlyTypes(m[0]) });
  }
  return out;
}

const EDGES = sources(SRC).flatMap(edgesOf);

describe('the import rule', () => {
  it('reads the sources', () => {
    expect(EDGES.length).toBeGreaterThan(500);
  });

  it('each layer imports only the layers below it; surfaces never import one another', () => {
    const bad: string[] = [];
    const used = new Set<string>();
    for (const e of EDGES) {
      const a = layerOf(e.from);
      const b = layerOf(e.to);
      const key = `${e.from} -> ${e.to}`;
      const sameTop = e.from.split('/')[0] === e.to.split('/')[0];
      const ok = a === 'surface' && b === 'surface' ? sameTop : a === b || MAY[a].includes(b);
      if (ok) continue;
      if (key in ALLOWED) {
        used.add(key);
        continue;
      }
      bad.push(`${key} (${a} → ${b}${e.typeOnly ? ', type only' : ''})`);
    }
    expect(bad, 'imports against the rule (docs/ARCHITECTURE.md)').toEqual([]);
    const stale = Object.keys(ALLOWED).filter((k) => !used.has(k));
    expect(stale, 'allowed edges no longer needed: take them out of ALLOWED').toEqual([]);
  });

  it('engine and store never import each other, not even for types', () => {
    const crossing = EDGES.filter(
      (e) =>
        (layerOf(e.from) === 'engine' && layerOf(e.to) === 'store') ||
        (layerOf(e.from) === 'store' && layerOf(e.to) === 'engine'),
    );
    expect(crossing.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it('/firecrawl and /v1 routes share only app/, contract/ and the server plumbing', () => {
    const crossing = EDGES.filter(
      (e) =>
        (e.from.startsWith('server/firecrawl/') && e.to.startsWith('server/routes/')) ||
        (e.from.startsWith('server/routes/') && e.to.startsWith('server/firecrawl/')),
    );
    expect(crossing.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it('has no import cycle Node would load', () => {
    expect(cyclesOf(EDGES.filter((e) => !e.typeOnly))).toEqual([]);
  });

  it('has no cycle of type imports either, but those listed', () => {
    expect(cyclesOf(EDGES)).toEqual(TYPE_CYCLES);
  });
});
