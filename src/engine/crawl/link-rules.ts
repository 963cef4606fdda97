/**
 * Link rules of Firecrawl-style crawls (the /firecrawl surface), applied to the links a crawl
 * admits besides Trawl's own path globs: include/exclude regular expressions tested against the
 * URL's path (or the whole URL), a cap on the path's depth (number of segments) and a base path
 * the links must stay under. Patterns come from callers, so they run on V8's linear-time engine
 * (linear-regexp.ts); a Node without it falls back to refusing the shapes that backtrack without
 * end (a quantified group holding a quantifier).
 */
import { invalidRequest } from '../../errors.js';
import { LINEAR_REGEXP, linearRegExp, NOT_LINEAR } from './linear-regexp.js';

export interface LinkRules {
  /** Regular expressions: a link must match one of them (when any). */
  include?: string[];
  /** Regular expressions: a link matching one of them is dropped. */
  exclude?: string[];
  /** Test the patterns against the whole URL instead of its path. @default false */
  fullUrl?: boolean;
  /** Most path segments a link may have (`/a/b` has 2). */
  maxPathDepth?: number;
  /** Links must be at or below this path (e.g. `/blog`). */
  underPath?: string;
}

const MAX_PATTERN = 500;
const OPEN_REPEAT = /^\{\d+,\d*\}/;

/**
 * (Without the linear engine only.) Whether a group repeated without bound (`+`, `*`, `{n,}`) holds a quantifier at any depth —
 * `(a+)+`, `(\w*x)*`, `((a)+)+`, `(a|b?){2,}`: the shapes whose backtracking grows exponentially.
 * Conservative: some such patterns are harmless, and are refused all the same.
 */
function nestedQuantifier(p: string): boolean {
  const inner: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') inner.push(false);
    else if (c === ')') {
      const had = inner.pop() ?? false;
      const next = p[i + 1];
      const repeated = next === '+' || next === '*' || (next === '{' && OPEN_REPEAT.test(p.slice(i + 1)));
      if (had && repeated) return true;
      if (inner.length && (had || repeated)) inner[inner.length - 1] = true;
    } else if (
      inner.length &&
      (c === '+' || c === '*' || (c === '?' && p[i - 1] !== '(') || (c === '{' && OPEN_REPEAT.test(p.slice(i))))
    ) {
      inner[inner.length - 1] = true;
    }
  }
  return false;
}

/** Compiles one caller pattern, or a 400 naming where it was given. */
export function compilePattern(pattern: string, at: string): RegExp {
  if (pattern.length > MAX_PATTERN) throw invalidRequest(`${at}: a pattern may have at most ${MAX_PATTERN} characters`);
  if (!LINEAR_REGEXP && nestedQuantifier(pattern))
    throw invalidRequest(
      `${at}: nested quantifiers such as (a+)+ are refused (they can backtrack for ever); simplify the pattern`,
    );
  try {
    return linearRegExp(pattern);
  } catch (e) {
    const why = (e as Error).message;
    if (NOT_LINEAR.test(why))
      throw invalidRequest(
        `${at}: backreferences, lookarounds (?= ?! ?<= ?<!) and large counted repeats such as {1,500} are not supported (patterns must match in linear time)`,
      );
    throw invalidRequest(`${at}: not a valid regular expression (${why})`);
  }
}

const depthOf = (path: string) => path.split('/').filter(Boolean).length;

/** A predicate over canonical link URLs; everything passes when there are no rules. */
export function linkFilter(rules: LinkRules | undefined): (url: { href: string; pathname: string }) => boolean {
  if (!rules) return () => true;
  const inc = (rules.include ?? []).map((p, i) => compilePattern(p, `includePaths[${i}]`));
  const exc = (rules.exclude ?? []).map((p, i) => compilePattern(p, `excludePaths[${i}]`));
  const base = rules.underPath?.replace(/\/+$/, '');
  return (url) => {
    const subject = rules.fullUrl ? url.href : url.pathname;
    if (inc.length && !inc.some((r) => r.test(subject))) return false;
    if (exc.some((r) => r.test(subject))) return false;
    if (rules.maxPathDepth !== undefined && depthOf(url.pathname) > rules.maxPathDepth) return false;
    if (base && url.pathname !== base && !url.pathname.startsWith(`${base}/`)) return false;
    return true;
  };
}
