/**
 * SSRF guard: which IP addresses the fetcher may connect to. Only globally routable
 * unicast addresses pass; loopback, private, link-local (incl. cloud metadata 169.254.169.254),
 * CGNAT, multicast, reserved, documentation, and IPv6 forms that embed such an IPv4 address
 * (mapped, NAT64, 6to4, Teredo) are refused. Host spellings such as `2130706433`,
 * `0x7f.1` or `127.1` are normalised by the WHATWG URL parser before they get here;
 * `parseIpLiteral` also accepts them for callers holding a raw host.
 */
import ipaddr from 'ipaddr.js';

/** Metadata endpoints that are not covered by a reserved range. */
const METADATA = new Set(['168.63.129.16', '100.100.100.200', '192.0.0.192']);

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

function v4Verdict(ip: ipaddr.IPv4): AddressVerdict {
  const text = ip.toString();
  if (METADATA.has(text)) return { allowed: false, reason: 'a cloud metadata address' };
  const range = ip.range();
  if (range === 'unicast') return { allowed: true };
  return { allowed: false, reason: `a ${describe(range)} address` };
}

function describe(range: string): string {
  switch (range) {
    case 'loopback':
      return 'loopback';
    case 'private':
      return 'private';
    case 'linkLocal':
      return 'link-local';
    case 'carrierGradeNat':
      return 'CGNAT';
    case 'multicast':
      return 'multicast';
    case 'unspecified':
      return 'unspecified';
    case 'broadcast':
      return 'broadcast';
    case 'uniqueLocal':
      return 'private (unique local)';
    default:
      return `reserved (${range})`;
  }
}

export function checkAddress(address: string): AddressVerdict {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return { allowed: false, reason: 'not a valid IP address' };
  }
  if (ip.kind() === 'ipv4') return v4Verdict(ip as ipaddr.IPv4);
  const v6 = ip as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v4Verdict(v6.toIPv4Address());
  const parts = v6.parts;
  // Forms that carry an IPv4 address inside: judge the embedded one too.
  const embedded = (hi: number, lo: number) =>
    ipaddr.fromByteArray([hi >> 8, hi & 255, lo >> 8, lo & 255]) as ipaddr.IPv4;
  const range = v6.range();
  if (range === 'rfc6052' || (parts[0] === 0x64 && parts[1] === 0xff9b)) {
    return v4Verdict(embedded(parts[6], parts[7])).allowed
      ? { allowed: false, reason: 'a NAT64 address' }
      : v4Verdict(embedded(parts[6], parts[7]));
  }
  if (range === '6to4') return { allowed: false, reason: 'a 6to4 address' };
  if (range === 'teredo') return { allowed: false, reason: 'a Teredo address' };
  // IPv4-compatible (deprecated) ::a.b.c.d
  if (parts.slice(0, 6).every((p) => p === 0) && (parts[6] || parts[7] > 1))
    return v4Verdict(embedded(parts[6], parts[7]));
  if (range === 'unicast') return { allowed: true };
  return { allowed: false, reason: `a ${describe(range)} address` };
}

/**
 * Parse a host written as an IP literal in any spelling browsers accept (decimal
 * `2130706433`, hex `0x7f000001`, octal `0177.0.0.1`, short `127.1`, bracketed IPv6).
 * Returns the canonical address, or undefined when the host is a name.
 */
export function parseIpLiteral(host: string): string | undefined {
  const h = host.replace(/^\[|\]$/g, '');
  if (ipaddr.IPv6.isValid(h) && h.includes(':')) return ipaddr.IPv6.parse(h).toString();
  try {
    // The URL parser implements the WHATWG IPv4 number rules (what browsers connect to).
    const parsed = new URL(`http://${h}/`).hostname;
    if (ipaddr.IPv4.isValidFourPartDecimal(parsed)) return parsed;
  } catch {
    return undefined;
  }
  return undefined;
}
