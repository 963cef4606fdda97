/**
 * How large a request may be, as the contract says: 1 MiB for a body, except on the batch routes,
 * whose 10,000 URLs (the contract's bound) of up to MAX_URL_CHARS each must fit, with the options
 * beside them. The HTTP side of it (a route's limit, the 413's detail) is server/body-limits.ts.
 */
export const MiB = 1024 * 1024;
export const BODY_LIMIT = MiB;

/** The longest URL any request may name (validation.ts's httpUrl). */
export const MAX_URL_CHARS = 8192;
export const MAX_BATCH_URLS = 10_000;

/**
 * A batch body: every URL at its longest written plainly (a URL is ASCII as clients send it),
 * quoted and comma-separated, plus the 1 MiB any other body may have for the options: 80 MiB.
 */
export const BATCH_BODY_LIMIT = Math.ceil((MAX_BATCH_URLS * (MAX_URL_CHARS + 3) + BODY_LIMIT) / MiB) * MiB;
