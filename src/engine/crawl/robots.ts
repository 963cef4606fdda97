/**
 * robots.txt (RFC 9309): groups by user-agent (our token, else `*`), the longest matching
 * rule wins, Allow wins a tie, `*` matches any run of characters and a final `$` anchors the
 * end. Also reads Crawl-delay and Sitemap lines. A missing file (4xx) allows everything; an
 * unreachable one (5xx, network) disallows, as the RFC says, until it can be read.
 */
import { isTrawlError } from '../../errors.js';
import type { Fetchers } from '../fetch/page.js';

export interface RobotsRules {
  allow(pathAndQuery: string): boolean;
  crawlDelaySeconds?: number;
  sitemaps: string[];
}

interface Rule {
  allow: boolean;
  pattern: string;
  re: RegExp;
}

function compile(pattern: string): RegExp {
  const anchored = pattern.endsWith('$');
  const body = (anchored ? pattern.slice(0, -1) : pattern)
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}${anchored ? '$' : ''}`);
}

/** Percent-encoding is compared in one form (RFC 9309 §2.2.2). */
function normalisePath(p: string): string {
  try {
    return encodeURI(decodeURI(p));
  } catch {
    return p;
  }
}

export function parseRobots(text: string, userAgent: string): RobotsRules {
  const token = userAgent.toLowerCase();
  const groups: { agents: string[]; rules: Rule[]; delay?: number }[] = [];
  const sitemaps: string[] = [];
  let current: (typeof groups)[number] | undefined;
  let lastWasAgent = false;
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = m[1].toLowerCase();
    const value = m[2].trim();
    if (key === 'user-agent') {
      if (!lastWasAgent || !current) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (key === 'sitemap') {
      if (value) sitemaps.push(value);
      continue;
    }
    if (!current) continue;
    if (key === 'allow' || key === 'disallow') {
      // An empty Disallow allows everything: it adds no rule.
      if (!value) continue;
      const pattern = normalisePath(value);
      current.rules.push({ allow: key === 'allow', pattern, re: compile(pattern) });
    } else if (key === 'crawl-delay') {
      const d = Number(value);
      if (Number.isFinite(d) && d >= 0) current.delay = d;
    }
  }
  const mine = groups.filter((g) => g.agents.some((a) => a !== '*' && token.includes(a)));
  const chosen = mine.length ? mine : groups.filter((g) => g.agents.includes('*'));
  const rules = chosen.flatMap((g) => g.rules);
  const delay = chosen.map((g) => g.delay).find((d) => d !== undefined);
  return {
    sitemaps,
    crawlDelaySeconds: delay,
    allow(pathAndQuery: string) {
      const path = normalisePath(pathAndQuery || '/');
      if (path === '/robots.txt') return true;
      let best: Rule | undefined;
      for (const r of rules) {
        if (!r.re.test(path)) continue;
        if (
          !best ||
          r.pattern.length > best.pattern.length ||
          (r.pattern.length === best.pattern.length && r.allow && !best.allow)
        )
          best = r;
      }
      return best ? best.allow : true;
    },
  };
}

export const ALLOW_ALL: RobotsRules = { allow: () => true, sitemaps: [] };
export const DISALLOW_ALL: RobotsRules = { allow: () => false, sitemaps: [] };

/** An origin's robots.txt through the guarded client (a refused address stays refused). */
export async function loadRobots(
  fetchers: Fetchers,
  origin: string,
  agent: string,
  signal: AbortSignal,
): Promise<RobotsRules> {
  try {
    const res = await fetchers.http.request(`${origin}/robots.txt`, {
      timeoutMs: 10_000,
      maxBytes: 512 * 1024,
      signal,
      headers: { accept: 'text/plain,*/*' },
    });
    if (res.status >= 500) return DISALLOW_ALL;
    if (res.status >= 400) return ALLOW_ALL;
    return parseRobots(res.body.toString('utf8'), agent);
  } catch (e) {
    // A refused address stays refused; a site without a reachable robots.txt is crawlable.
    if (isTrawlError(e) && e.code === 'forbidden_target') throw e;
    return ALLOW_ALL;
  }
}
