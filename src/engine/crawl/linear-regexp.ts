/**
 * Regular expressions built from callers' patterns (crawl include/exclude rules, path globs) run
 * on V8's non-backtracking engine (the `l` flag), so matching takes time linear in the URL
 * whatever the pattern: a backtracking engine spends minutes on `.*.*.*.*.*.*.*.*x` against a
 * 60-character path, on the event loop every request shares, and no check of a pattern's shape
 * catches every such case. The engine is behind a V8 flag, turned on here for the process; it
 * only adds the `l` flag (other expressions are untouched). What it cannot run in linear time
 * (backreferences, lookarounds, large counted repeats) is refused when compiled.
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--enable-experimental-regexp-engine');

/** The linear engine's flag (a variable: linters know only the standard flags). */
const LINEAR_FLAG = 'l';

function probe(): boolean {
  try {
    return new RegExp('a', LINEAR_FLAG).test('a');
  } catch {
    return false;
  }
}

/** Whether this Node's V8 has the linear engine (Node 16 and later do). */
export const LINEAR_REGEXP = probe();

/** Thrown (as a SyntaxError) for a pattern the linear engine cannot run. */
export const NOT_LINEAR = /cannot be executed in linear time/i;

/** `pattern` compiled for the linear engine when there is one (a SyntaxError when it is invalid or not linear). */
export function linearRegExp(pattern: string): RegExp {
  return new RegExp(pattern, LINEAR_REGEXP ? LINEAR_FLAG : '');
}
