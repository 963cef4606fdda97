/**
 * A batch's URLs as a job takes them (v1 and the Firecrawl surface alike): spelled one way, so
 * a URL listed twice in other spellings is scraped once.
 */
/**
 * Distinct URLs in the order first listed, each without its fragment and as the URL parser
 * writes it (host in lower case, no default port, `.` and `..` segments resolved): `/a`, `/a#x`,
 * `HOST/a`, `:80/a` and `/./a` are one page. The query is kept as given (a server may read its order).
 */
export function uniqueUrls(urls: string[]): string[] {
  const seen = new Set<string>();
  for (const raw of urls) {
    const u = new URL(raw);
    u.hash = '';
    seen.add(u.href);
  }
  return [...seen];
}
