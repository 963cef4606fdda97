"""verify_webhook: Standard Webhooks (timestamp tolerance, several v1 entries, rotation) and the
seed's X-Service-Signature; deliveries signed by the official npm `standardwebhooks` library
(TRAWL_TEST_NPM_SIGNED, written by test/sdk/python.test.ts) must verify here unchanged."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import unittest
from http.client import HTTPMessage

from _support import env, sign

from trawl import WebhookVerificationError, verify_webhook

SECRET = 'whsec_' + base64.b64encode(bytes(range(32))).decode()
OTHER = 'whsec_' + base64.b64encode(bytes(range(100, 132))).decode()
BODY = json.dumps({'id': 'evt_1', 'event': 'change.detected', 'monitor_id': 'mon_1', 'sequence': 3, 'changes': {'price': {'from': 19.99, 'to': 17.99}}, 'at': '2026-11-21T23:00:00.000Z'}).encode()


def delivery(body: bytes = BODY, secrets=(SECRET,), ts: int = 0, msg_id: str = 'evt_1') -> dict:
    ts = ts or int(time.time())
    return {
        'Content-Type': 'application/json',
        'webhook-id': msg_id,
        'webhook-timestamp': str(ts),
        'webhook-signature': ' '.join(sign(s, msg_id, ts, body) for s in secrets),
    }


class StandardWebhooksTest(unittest.TestCase):
    def test_a_good_delivery_returns_the_event(self) -> None:
        event = verify_webhook(BODY, delivery(), SECRET)
        self.assertEqual((event['id'], event['sequence'], event['changes']['price']['to']), ('evt_1', 3, 17.99))

    def test_header_names_in_any_case_and_header_objects(self) -> None:
        upper = {k.upper(): v for k, v in delivery().items()}
        self.assertEqual(verify_webhook(BODY, upper, SECRET)['id'], 'evt_1')
        msg = HTTPMessage()
        for k, v in delivery().items():
            msg[k] = v
        self.assertEqual(verify_webhook(bytearray(BODY), msg, SECRET)['id'], 'evt_1')

    def test_a_tampered_body_id_or_timestamp_is_refused(self) -> None:
        h = delivery()
        for body, headers in [
            (BODY.replace(b'17.99', b'1.99'), h),
            (BODY + b' ', h),
            (BODY, {**h, 'webhook-id': 'evt_2'}),
            (BODY, {**h, 'webhook-timestamp': str(int(h['webhook-timestamp']) - 1)}),
            (BODY, {**h, 'webhook-signature': h['webhook-signature'][:-4] + 'AAA='}),
        ]:
            with self.assertRaises(WebhookVerificationError) as ctx:
                verify_webhook(body, headers, SECRET)
            self.assertIn(ctx.exception.error, ('invalid_signature',))

    def test_the_wrong_secret_is_refused(self) -> None:
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(BODY, delivery(), OTHER)

    def test_stale_and_future_timestamps_are_refused_within_the_tolerance(self) -> None:
        now = time.time()
        old = delivery(ts=int(now) - 301)
        with self.assertRaises(WebhookVerificationError) as ctx:
            verify_webhook(BODY, old, SECRET, now=now)
        self.assertEqual(ctx.exception.error, 'stale_timestamp')
        self.assertEqual(verify_webhook(BODY, old, SECRET, tolerance_seconds=600, now=now)['id'], 'evt_1')
        ahead = delivery(ts=int(now) + 400)
        with self.assertRaises(WebhookVerificationError) as ctx:
            verify_webhook(BODY, ahead, SECRET, now=now)
        self.assertEqual(ctx.exception.error, 'future_timestamp')
        # The check is against the given clock: the same delivery is fresh 400 s later.
        self.assertEqual(verify_webhook(BODY, ahead, SECRET, now=now + 400)['id'], 'evt_1')

    def test_rotation_any_v1_entry_verifies_with_either_secret(self) -> None:
        h = delivery(secrets=(OTHER, SECRET))  # new, then old
        self.assertEqual(verify_webhook(BODY, h, SECRET)['id'], 'evt_1')
        self.assertEqual(verify_webhook(BODY, h, OTHER)['id'], 'evt_1')
        self.assertEqual(verify_webhook(BODY, delivery(secrets=(OTHER,)), [SECRET, OTHER])['id'], 'evt_1')
        third = 'whsec_' + base64.b64encode(b'\x07' * 32).decode()
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(BODY, h, third)
        # Entries of another version are ignored, not trusted.
        only_v2 = {**h, 'webhook-signature': h['webhook-signature'].replace('v1,', 'v2,')}
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(BODY, only_v2, SECRET)

    def test_missing_or_malformed_headers(self) -> None:
        h = delivery()
        for name in ('webhook-id', 'webhook-timestamp', 'webhook-signature'):
            partial = {k: v for k, v in h.items() if k != name}
            with self.assertRaises(WebhookVerificationError) as ctx:
                verify_webhook(BODY, partial, SECRET)
            self.assertIn(name, str(ctx.exception))
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(BODY, {**h, 'webhook-timestamp': '17e8'}, SECRET)
        with self.assertRaises(WebhookVerificationError) as ctx:
            verify_webhook(BODY, {'content-type': 'application/json'}, SECRET)
        self.assertEqual(ctx.exception.error, 'missing_signature')
        with self.assertRaises(ValueError):
            verify_webhook(BODY, h, '')

    def test_edges_agree_with_the_standardwebhooks_library(self) -> None:
        # The library reads its clock in whole seconds: 300.9 s old is still within 300 s.
        ts = 1_795_000_000
        h = delivery(ts=ts)
        self.assertEqual(verify_webhook(BODY, h, SECRET, now=ts + 300.9)['id'], 'evt_1')
        for now, error in [(ts + 301, 'stale_timestamp'), (ts - 301, 'future_timestamp')]:
            with self.assertRaises(WebhookVerificationError) as ctx:
                verify_webhook(BODY, h, SECRET, now=now)
            self.assertEqual(ctx.exception.error, error)
        # Entries are separated by spaces only; a tab does not separate them.
        tabbed = {**h, 'webhook-signature': 'v1,AAAA\t' + h['webhook-signature']}
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(BODY, tabbed, SECRET, now=ts)
        # A latin-1 digit such as '²' is no timestamp: a verification error, not a ValueError.
        for stamp in ('\u00b2', '\u0661\u0662', '１２３'):
            with self.assertRaises(WebhookVerificationError) as ctx:
                verify_webhook(BODY, {**h, 'webhook-timestamp': stamp}, SECRET)
            self.assertEqual(ctx.exception.error, 'invalid_timestamp')
        with self.assertRaises(ValueError):
            verify_webhook(BODY, h, SECRET, tolerance_seconds=float('nan'))

    def test_a_standard_header_decides_even_beside_a_valid_seed_signature(self) -> None:
        # A replayed body keeps its valid X-Service-Signature; a stale timestamp must still fail.
        seed = 'sha256=' + hmac.new(SECRET.encode(), BODY, hashlib.sha256).hexdigest()
        stale = {**delivery(ts=int(time.time()) - 3600), 'X-Service-Signature': seed}
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(BODY, stale, SECRET)


class SeedSignatureTest(unittest.TestCase):
    def test_x_service_signature_is_hmac_of_the_body_keyed_with_the_secret_string(self) -> None:
        seed = 'sha256=' + hmac.new(SECRET.encode(), BODY, hashlib.sha256).hexdigest()
        self.assertEqual(verify_webhook(BODY, {'X-Service-Signature': seed}, SECRET, allow_seed_signature=True)['id'], 'evt_1')
        for body, header, secret in [
            (BODY.replace(b'evt_1', b'evt_9'), seed, SECRET),
            (BODY, seed, OTHER),
            (BODY, seed.upper(), SECRET),
            (BODY, seed[len('sha256='):], SECRET),
        ]:
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(body, {'x-service-signature': header}, secret, allow_seed_signature=True)

    def test_a_delivery_stripped_to_its_seed_signature_is_refused_by_default(self) -> None:
        # A captured delivery, replayed an hour later without its webhook-* headers: the seed
        # signature still matches (it signs no time), so only refusing the scheme stops the replay.
        old = delivery(ts=int(time.time()) - 3600)
        seed = 'sha256=' + hmac.new(SECRET.encode(), BODY, hashlib.sha256).hexdigest()
        with self.assertRaises(WebhookVerificationError) as ctx:
            verify_webhook(BODY, {**old, 'X-Service-Signature': seed}, SECRET)
        self.assertEqual(ctx.exception.error, 'stale_timestamp')
        with self.assertRaises(WebhookVerificationError) as ctx:
            verify_webhook(BODY, {'Content-Type': 'application/json', 'X-Service-Signature': seed}, SECRET)
        self.assertEqual(ctx.exception.error, 'missing_signature')
        self.assertIn('allow_seed_signature', str(ctx.exception))


class NpmCrossCheckTest(unittest.TestCase):
    """Cases signed in Node by the official `standardwebhooks` library (and node:crypto for the seed)."""

    def test_every_npm_signed_case_verifies_as_expected(self) -> None:
        with open(env('TRAWL_TEST_NPM_SIGNED'), encoding='utf-8') as f:
            signed = json.load(f)
        self.assertGreaterEqual(len(signed['cases']), 6)
        for case in signed['cases']:
            body = case['body'].encode('utf-8')
            secrets = case.get('secrets', [signed['secret']])
            seed = case.get('allow_seed', False)
            if case['valid']:
                event = verify_webhook(body, case['headers'], secrets, allow_seed_signature=seed)
                self.assertEqual(event, json.loads(case['body']), case['name'])
                # The same delivery with one byte changed is refused.
                with self.assertRaises(WebhookVerificationError, msg=case['name']):
                    verify_webhook(body[:-1] + b' ', case['headers'], secrets, allow_seed_signature=seed)
            else:
                with self.assertRaises(WebhookVerificationError, msg=case['name']) as ctx:
                    verify_webhook(body, case['headers'], secrets, allow_seed_signature=seed)
                self.assertEqual(ctx.exception.error, case['error'], case['name'])


if __name__ == '__main__':
    unittest.main()
