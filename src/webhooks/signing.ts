/**
 * Webhook signatures, two schemes on every request (contract section 5):
 * - the seed's `X-Service-Signature: sha256=<hex HMAC-SHA-256 of the raw body>`, keyed with the
 *   secret string as it is (`whsec_…` included);
 * - Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` (unix seconds of
 *   this attempt) and `webhook-signature: v1,<base64 HMAC-SHA-256 of "{id}.{timestamp}.{body}">`,
 *   keyed with the base64-decoded part after `whsec_`. While a rotated-out secret is still valid,
 *   it signs too: a second, space-separated `v1,` entry.
 */
import { createHmac } from 'node:crypto';

export const USER_AGENT = 'Trawl-Webhooks/1';

export const signature = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;

/** The HMAC key of a `whsec_` secret: its base64 part decoded (a first-form base62 secret decodes too). */
export const secretKey = (secret: string): Buffer =>
  Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');

export const standardSignature = (secret: string, id: string, timestamp: number, body: string) =>
  `v1,${createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;

export interface Secrets {
  current: string;
  /** The secret before the last rotation, while its overlap lasts. */
  previous?: string | null;
  previousExpiresAt?: string | null;
}

/** The previous secret if it still signs at `nowMs`. */
export const previousInForce = (s: Secrets, nowMs: number): string | undefined =>
  s.previous && s.previousExpiresAt && Date.parse(s.previousExpiresAt) > nowMs ? s.previous : undefined;

/** Every header of one attempt: fresh timestamp and signatures over the same stored body. */
export function webhookHeaders(eventId: string, body: string, secrets: Secrets, nowMs: number): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  const old = previousInForce(secrets, nowMs);
  const v1 = [
    standardSignature(secrets.current, eventId, timestamp, body),
    ...(old ? [standardSignature(old, eventId, timestamp, body)] : []),
  ];
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    accept: '*/*',
    'x-service-signature': signature(secrets.current, body),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': v1.join(' '),
  };
}
