/** Headers of one connection (hop-by-hop, RFC 9110 §7.6.1, and the proxy's): never passed on, nor set by a caller. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
