/**
 * Verifying a webhook delivery (contract section 5) with WebCrypto only, so it runs wherever the
 * client does.
 *
 * - Standard Webhooks: `webhook-signature` holds one or more space-separated `v1,<base64>`
 *   entries (two during a secret rotation), each an HMAC-SHA-256 of `{id}.{timestamp}.{body}`
 *   keyed with the base64-decoded part of `whsec_…`; `webhook-timestamp` must be within the
 *   tolerance of now, which is what stops a captured delivery from being replayed.
 * - The seed scheme, `X-Service-Signature: sha256=<hex HMAC of the body keyed with the secret
 *   string>`, signs no time: anyone holding one old delivery could send it again for ever. It is
 *   accepted only when asked for (`allowSeedSignature`) and only when no Standard Webhooks header
 *   came, so a receiver cannot be downgraded by stripping those headers.
 */
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './types.js';

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way. @default 300 */
  toleranceSeconds?: number;
  /**
   * Accept a delivery signed only with `X-Service-Signature` (no `webhook-*` headers at all).
   * It carries no timestamp, so replays cannot be refused: de-duplicate on the event's `id`.
   * @default false
   */
  allowSeedSignature?: boolean;
  /** The current time in ms (tests). @default Date.now() */
  now?: number;
}

const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v.join(' ') : v;
  }
  return undefined;
}

function base64Bytes(s: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function hexBytes(s: string): Uint8Array | undefined {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(s)) return undefined;
  return Uint8Array.from(s.match(/../g)!, (h) => parseInt(h, 16));
}

/** Same length and same bytes, in time that does not depend on where they differ. */
function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

async function hmac(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey('raw', key as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  return new Uint8Array(await crypto.subtle.sign('HMAC', k, data as BufferSource));
}

function bodyBytes(raw: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof raw === 'string') return encoder.encode(raw);
  return raw instanceof Uint8Array ? raw : new Uint8Array(raw);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function parseEvent(body: Uint8Array): WebhookEvent {
  try {
    const event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)) as WebhookEvent;
    if (event && typeof event === 'object' && typeof event.event === 'string') return event;
  } catch {
    // fall through: a signed body that is not an event is still refused
  }
  throw new WebhookVerificationError('invalid_body', 'the body is not a JSON webhook event');
}

async function verifyStandard(
  body: Uint8Array,
  id: string | undefined,
  ts: string | undefined,
  signatures: string | undefined,
  secret: string,
  o: VerifyWebhookOptions,
): Promise<void> {
  if (!id || !ts || !signatures)
    throw new WebhookVerificationError(
      'missing_headers',
      'webhook-id, webhook-timestamp and webhook-signature are all required',
    );
  if (!/^\d{1,12}$/.test(ts))
    throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not unix seconds');
  const tolerance = o.toleranceSeconds ?? 300;
  // Whole seconds, as the standardwebhooks library counts: the same delivery is accepted or
  // refused by both, even in the last second of the tolerance.
  const skew = Math.abs(Math.floor((o.now ?? Date.now()) / 1000) - Number(ts));
  if (skew > tolerance)
    throw new WebhookVerificationError(
      'stale_timestamp',
      `webhook-timestamp is ${skew} s from now (more than ${tolerance} s)`,
    );
  const key = base64Bytes(secret.startsWith('whsec_') ? secret.slice(6) : secret);
  if (!key?.length) throw new WebhookVerificationError('invalid_secret', 'the secret is not whsec_ followed by base64');
  const mac = await hmac(key, concat(encoder.encode(`${id}.${ts}.`), body));
  // The base64 text is compared, as the library does: a re-encoding of the same bytes (no padding,
  // other trailing bits) is refused by both.
  const want = encoder.encode(btoa(String.fromCharCode(...mac)));
  // Every entry is compared, matched or not, so the time taken says nothing about which matched.
  let ok = false;
  for (const entry of signatures.split(' ')) {
    if (entry.startsWith('v1,') && equalBytes(encoder.encode(entry.slice(3)), want)) ok = true;
  }
  if (!ok)
    throw new WebhookVerificationError(
      'invalid_signature',
      'no v1 entry of webhook-signature matches this body and secret',
    );
}

async function verifySeed(body: Uint8Array, signature: string, secret: string): Promise<void> {
  const got = signature.startsWith('sha256=') ? hexBytes(signature.slice(7)) : undefined;
  const want = await hmac(encoder.encode(secret), body);
  if (!got || !equalBytes(got, want))
    throw new WebhookVerificationError('invalid_signature', 'X-Service-Signature does not match this body and secret');
}

/**
 * Checks that a delivery comes from Trawl, over the raw body exactly as received (before any
 * JSON parsing), and returns its event. Throws `WebhookVerificationError` otherwise.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  if (typeof secret !== 'string' || !secret)
    throw new WebhookVerificationError('invalid_secret', 'the signing secret is empty');
  // NaN (an unset variable through Number()) would let every timestamp through.
  const tolerance = options.toleranceSeconds;
  if (tolerance !== undefined && !(Number.isFinite(tolerance) && tolerance >= 0))
    throw new RangeError(`toleranceSeconds: must be a number of seconds ≥ 0, got ${tolerance}`);
  const body = bodyBytes(rawBody);
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const seed = header(headers, 'x-service-signature');
  if (
    id === undefined &&
    ts === undefined &&
    signatures === undefined &&
    seed !== undefined &&
    options.allowSeedSignature
  ) {
    await verifySeed(body, seed, secret);
  } else {
    await verifyStandard(body, id, ts, signatures, secret, options);
  }
  return parseEvent(body);
}
