/**
 * Link rules of Firecrawl-style crawls (the /firecrawl surface), applied to the links a crawl
 * admits besides Trawl's own path globs: include/exclude regular expressions tested against the
 * URL's path (or the whole URL), a cap on the path's depth (number of segments) and a base path
 * the links must stay under. Patterns come from callers, so each is checked once for the shapes
 * that backtrack without end (a quantified group holding a quantifier) before it is compiled.
 */
import { invalidRequest } from '../../errors.js';

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
/** A group, quantified, whose body holds a quantifier: `(a+)+`, `(\w*x)*`, `(a|b+){2,}`. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*(?:[+*]|\{\d+,?\d*\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,\d*\})/;

/** Compiles one caller pattern, or a 400 naming where it was given. */
export function compilePattern(pattern: string, at: string): RegExp {
  if (pattern.length > MAX_PATTERN) throw invalidRequest(`${at}: a pattern may have at most ${MAX_PATTERN} characters`);
  if (NESTED_QUANTIFIER.test(pattern)) throw invalidRequest(`${at}: nested quantifiers such as (a+)+ are refused (they can backtrack for ever); simplify the pattern`);
  try {
    return new RegExp(pattern);
  } catch (e) {
    throw invalidRequest(`${at}: not a valid regular expression (${(e as Error).message})`);
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
