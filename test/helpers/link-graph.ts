/**
 * Generated sites whose link graph is known, so a crawl's result can be checked against the set
 * a breadth-first walk reaches (each page at its shortest depth). Pages are served by a local
 * fixture server at `/g/<n>`; a page may be slowed down to make a deeper path finish first.
 */
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

export type Graph = number[][];

/** A small deterministic generator (tests must repeat). */
export function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

export const chain = (n: number): Graph => Array.from({ length: n }, (_, i) => (i + 1 < n ? [i + 1] : []));

/** Each page links the next one and `out` others at random. */
export function randomGraph(n: number, out: number, seed: number): Graph {
  const r = prng(seed);
  return Array.from({ length: n }, (_, i) => [(i + 1) % n, ...Array.from({ length: out }, () => Math.floor(r() * n))]);
}

/** Page 0 links every other page. */
export const hub = (n: number): Graph => [
  Array.from({ length: n - 1 }, (_, i) => i + 1),
  ...Array.from({ length: n - 1 }, () => [0]),
];

/** A complete tree of `fanout` children per page, `levels` levels below the root. */
export function tree(fanout: number, levels: number): Graph {
  const g: Graph = [];
  let count = 1;
  for (let level = 0, first = 0, width = 1; level <= levels; level++, first += width, width *= fanout)
    for (let i = first; i < first + width; i++)
      g[i] = level < levels ? Array.from({ length: fanout }, () => count++) : [];
  return g;
}

/** Shortest depth of every page reachable from page 0 within `maxDepth` links. */
export function reach(g: Graph, maxDepth: number): Map<number, number> {
  const depth = new Map([[0, 0]]);
  const queue = [0];
  for (let k = 0; k < queue.length; k++) {
    const x = queue[k];
    if (depth.get(x)! >= maxDepth) continue;
    for (const y of g[x])
      if (!depth.has(y)) {
        depth.set(y, depth.get(x)! + 1);
        queue.push(y);
      }
  }
  return depth;
}

const page = (i: number, links: number[]) =>
  `<html><head><title>Page ${i}</title></head><body><article><h1>Page ${i}</h1>` +
  `<p>The text of page ${i}, long enough to be read as the content of the page.</p>` +
  `<ul>${links.map((j) => `<li><a href="/g/${j}">page ${j}</a></li>`).join('')}</ul></article></body></html>`;

/** Serves the graph; `delayMs(i)` slows page i down. */
export async function serveGraph(g: Graph, delayMs: (i: number) => number = () => 0): Promise<FixtureServer> {
  const site = await startFixtureServer();
  const html = g.map((links, i) => page(i, links));
  for (let i = 0; i < g.length; i++)
    site.route(`/g/${i}`, async (_q, res) => {
      const ms = delayMs(i);
      if (ms) await new Promise((r) => setTimeout(r, ms));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html[i]);
    });
  return site;
}

/** The page number of a crawled URL (`/g/<n>`). */
export const pageNumber = (url: string) => Number(new URL(url).pathname.slice(3));
