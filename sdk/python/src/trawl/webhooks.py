"""Verifying Trawl's webhook deliveries (API.md section 5), standard library only.

Each delivery is signed two ways:
- Standard Webhooks: ``webhook-id``, ``webhook-timestamp`` (unix seconds of the attempt) and
  ``webhook-signature: v1,<base64 HMAC-SHA-256 of "{id}.{timestamp}.{body}">`` keyed with the
  base64-decoded part of the ``whsec_…`` secret; during a secret rotation it carries two
  space-separated ``v1,`` entries (new, then old).
- The seed scheme: ``X-Service-Signature: sha256=<hex HMAC-SHA-256 of the body>`` keyed with the
  secret string as it is (``whsec_…`` included). It has no timestamp, so a captured delivery
  stripped of its ``webhook-*`` headers would verify for ever: it is accepted only when asked for.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import math
import time
from typing import Any, Dict, Iterable, Mapping, Optional, Union

from .errors import WebhookVerificationError

__all__ = ['verify_webhook', 'WebhookVerificationError']

Secrets = Union[str, Iterable[str]]


def verify_webhook(
    raw_body: Union[bytes, bytearray, memoryview, str],
    headers: Mapping[str, Any],
    secret: Secrets,
    tolerance_seconds: float = 300,
    *,
    now: Optional[float] = None,
    allow_seed_signature: bool = False,
) -> Dict[str, Any]:
    """Check a delivery's signature and return the event it carries.

    Args:
        raw_body: the request body exactly as received (bytes, before any JSON parsing).
        headers: the request headers, any mapping (names are matched case-insensitively).
        secret: the account's signing secret ``whsec_…``, or several (old and new during a rotation).
        tolerance_seconds: how far ``webhook-timestamp`` may be from now (default 5 minutes).
        now: the unix time to judge the timestamp against (default: the clock).
        allow_seed_signature: also accept a delivery signed only with ``X-Service-Signature``
            (no ``webhook-*`` header at all). It signs no timestamp, so a replay cannot be told
            apart: de-duplicate on the event's ``id`` if you turn it on.

    When ``webhook-signature`` (or another Standard Webhooks header) is present, that scheme
    decides, timestamp included; only a delivery without it may be checked against
    ``X-Service-Signature``, and only with ``allow_seed_signature``. Raises
    :class:`WebhookVerificationError` when nothing verifies.
    """
    raw = raw_body.encode('utf-8') if isinstance(raw_body, str) else bytes(raw_body)
    h = _lower(headers)
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets or not all(isinstance(s, str) and s for s in secrets):
        raise ValueError('secret: pass the signing secret ("whsec_…") or a list of them')
    # NaN (a missing setting through float()) would let every timestamp through.
    if not (isinstance(tolerance_seconds, (int, float)) and 0 <= tolerance_seconds < float('inf')):
        raise ValueError(f'tolerance_seconds: must be a number of seconds >= 0, got {tolerance_seconds!r}')
    if any(name in h for name in ('webhook-id', 'webhook-timestamp', 'webhook-signature')):
        _verify_standard(raw, h, secrets, tolerance_seconds, time.time() if now is None else now)
    elif 'x-service-signature' in h and allow_seed_signature:
        _verify_seed(raw, h['x-service-signature'], secrets)
    elif 'x-service-signature' in h:
        # Every Trawl delivery has the webhook-* headers: without them this is a stripped copy.
        raise WebhookVerificationError('only X-Service-Signature came, which signs no timestamp (a replayed delivery would pass it); Trawl sends webhook-id, webhook-timestamp and webhook-signature on every delivery (allow_seed_signature=True accepts the seed scheme alone)', error='missing_signature')
    else:
        raise WebhookVerificationError('no signature: the request has neither webhook-signature nor X-Service-Signature', error='missing_signature')
    try:
        event = json.loads(raw.decode('utf-8'))
    except (UnicodeDecodeError, ValueError) as e:
        raise WebhookVerificationError('the signed body is not JSON', error='invalid_body') from e
    if not isinstance(event, dict):
        raise WebhookVerificationError('the signed body is not a JSON object', error='invalid_body')
    return event


def _lower(headers: Mapping[str, Any]) -> Dict[str, str]:
    """Header names in lower case; a header given as a list is joined (signatures by spaces)."""
    out: Dict[str, str] = {}
    for name, value in headers.items():
        if isinstance(value, (list, tuple)):
            value = ' '.join(str(v) for v in value)
        elif isinstance(value, bytes):
            value = value.decode('latin-1')
        out[str(name).lower()] = str(value).strip()
    return out


def _key(secret: str) -> bytes:
    """The HMAC key of a Standard Webhooks secret: the base64 after ``whsec_``."""
    encoded = secret[len('whsec_'):] if secret.startswith('whsec_') else secret
    try:
        return base64.b64decode(encoded + '=' * (-len(encoded) % 4))
    except (binascii.Error, ValueError) as e:
        raise ValueError('secret: not a Standard Webhooks secret ("whsec_" followed by base64)') from e


def _verify_standard(raw: bytes, h: Mapping[str, str], secrets: Iterable[str], tolerance: float, now: float) -> None:
    for name in ('webhook-id', 'webhook-timestamp', 'webhook-signature'):
        if not h.get(name):
            raise WebhookVerificationError(f'missing header {name}', error='missing_signature')
    msg_id, stamp, signatures = h['webhook-id'], h['webhook-timestamp'], h['webhook-signature']
    # ASCII digits only: str.isdigit() also takes '²' (latin-1, so a raw header can carry it),
    # which int() then refuses with a ValueError the receiver would not catch.
    if not (stamp.isascii() and stamp.isdigit()) or len(stamp) > 12:
        raise WebhookVerificationError('webhook-timestamp is not unix seconds', error='invalid_timestamp')
    ts = int(stamp)
    # Whole seconds, as the standardwebhooks library counts: both accept the same deliveries.
    now = math.floor(now)
    if now - ts > tolerance:
        raise WebhookVerificationError(f'webhook-timestamp is {int(now - ts)} s old (more than {tolerance:g} s): a stale or replayed delivery', error='stale_timestamp')
    if ts - now > tolerance:
        raise WebhookVerificationError(f'webhook-timestamp is {int(ts - now)} s in the future (more than {tolerance:g} s)', error='future_timestamp')
    signed = f'{msg_id}.{stamp}.'.encode('utf-8') + raw
    # Space-separated, as the Standard Webhooks spec and its libraries split them.
    offered = [entry[3:].encode('ascii', 'replace') for entry in signatures.split(' ') if entry.startswith('v1,')]
    if not offered:
        raise WebhookVerificationError('webhook-signature has no v1 entry', error='invalid_signature')
    matched = False
    for secret in secrets:
        want = base64.b64encode(hmac.new(_key(secret), signed, hashlib.sha256).digest())
        for got in offered:
            # Every pair is compared (constant time each), so timing says nothing about which matched.
            matched |= hmac.compare_digest(got, want)
    if not matched:
        raise WebhookVerificationError('webhook-signature does not match the body with this secret', error='invalid_signature')


def _verify_seed(raw: bytes, header: str, secrets: Iterable[str]) -> None:
    got = header.encode('ascii', 'replace')
    matched = False
    for secret in secrets:
        want = ('sha256=' + hmac.new(secret.encode('utf-8'), raw, hashlib.sha256).hexdigest()).encode('ascii')
        matched |= hmac.compare_digest(got, want)
    if not matched:
        raise WebhookVerificationError('X-Service-Signature does not match the body with this secret', error='invalid_signature')
