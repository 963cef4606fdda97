/**
 * Gives freed native memory back to the system. glibc's malloc keeps what large work freed (a
 * screenshot's buffers, a body worker's or a PDF worker's arena after it ended) in its arenas, cut
 * into pieces it can only return from the top of each heap: after issue 39's attacks the service
 * held ~90 MB over its start for good, every JS heap back to its size, and one `malloc_trim(0)`
 * took it back to the start (measured with gdb on bench:abuse). So a process checks its RSS now and
 * then and, when it stands a step over its lowest, asks glibc to trim, on a libuv thread. A trim's
 * cost is the pages it gives back (~1.5 ms a MB), and while it walks an arena that arena's
 * allocations wait — the event loop's too when it is the main arena's turn. So RSS is looked at
 * every second: trims stay small (what a second of work freed), never one long stall after a
 * burst; a steady service never pays one. Where there is no glibc (musl, macOS, Windows) or no FFI, this does nothing.
 */
import { createRequire } from 'node:module';

const MiB = 2 ** 20;

export interface TrimResult {
  /** RSS before and after, in bytes. */
  before: number;
  after: number;
  ms: number;
}

/** koffi's function: called in place, or on a libuv thread with a callback (`async`). */
type Trim = ((pad: number) => number) & { async(pad: number, done: (err: unknown, res: number) => void): void };
let trimFn: Trim | null | undefined;

/** glibc's malloc_trim through koffi, or null where either is missing. */
function loadTrim(): Trim | null {
  if (trimFn !== undefined) return trimFn;
  trimFn = null;
  if (process.platform !== 'linux') return trimFn;
  try {
    // koffi is a native module: loaded on first use, and its absence only turns trimming off.
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    trimFn = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as Trim;
  } catch {
    trimFn = null;
  }
  return trimFn;
}

/**
 * Trims on a libuv thread (other threads' arenas are walked while the event loop runs); undefined
 * where trimming is not possible.
 */
export async function trimNativeMemory(): Promise<TrimResult | undefined> {
  const trim = loadTrim();
  if (!trim) return undefined;
  const before = process.memoryUsage.rss();
  const t = performance.now();
  await new Promise<void>((resolve) => trim.async(0, () => resolve()));
  return { before, after: process.memoryUsage.rss(), ms: performance.now() - t };
}

export interface MemoryTrimmerOptions {
  /** How often RSS is looked at. */
  intervalMs?: number;
  /** RSS over the lowest seen by this much makes a look trim. */
  growthBytes?: number;
  onTrim?: (result: TrimResult) => void;
}

/** A trim that gave back less than this counts as useless: the next waits twice as long. */
const USEFUL_BYTES = 4 * MiB;
const MAX_BACKOFF = 64;

/**
 * Looks at RSS every `intervalMs` and trims while it stands `growthBytes` over the lowest RSS seen.
 * Memory freed after a trim is still found (RSS stays high), so trims go on while they give back;
 * when they do not (the memory is live), each waits twice as long as the one before, up to 64
 * looks, until RSS grows again past what the last trim left.
 */
export function startMemoryTrimmer(options: MemoryTrimmerOptions = {}): { stop(): void } {
  if (!loadTrim()) return { stop() {} };
  const interval = options.intervalMs ?? 1_000;
  const growth = options.growthBytes ?? 16 * MiB;
  let floor = process.memoryUsage.rss();
  let lastAfter = floor;
  let backoff = 1;
  let nextAt = 0;
  let trimming = false;
  const timer = setInterval(() => {
    const rss = process.memoryUsage.rss();
    floor = Math.min(floor, rss);
    if (trimming || rss - floor < growth) return;
    if (Date.now() < nextAt && rss - lastAfter < growth) return;
    trimming = true;
    void trimNativeMemory().then((result) => {
      trimming = false;
      if (!result) return;
      lastAfter = result.after;
      backoff = result.before - result.after < USEFUL_BYTES ? Math.min(backoff * 2, MAX_BACKOFF) : 1;
      nextAt = Date.now() + backoff * interval;
      options.onTrim?.(result);
    });
  }, interval);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
