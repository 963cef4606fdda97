"""The client's HTTP behaviour against a local stub server (no service needed): request shape,
error classes, 429 waits honouring retry_after / Retry-After, 502/504 backoff on idempotent
calls only, timeouts and refused connections, job polling and cursor paging."""
from __future__ import annotations

import json
import socket
import time
import unittest
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

from _support import LocalServer

import trawl
from trawl import (
    APIConnectionError,
    AuthenticationError,
    BlockedError,
    FetchFailedError,
    InsufficientCreditsError,
    InternalServerError,
    InvalidRequestError,
    InvalidSchemaError,
    JobTimeoutError,
    NotFoundError,
    RateLimitError,
    RequestTimeoutError,
    Trawl,
    TrawlError,
    UpstreamError,
)

KEY = 'trawl_' + 'k' * 40


class StubTestCase(unittest.TestCase):
    def setUp(self) -> None:
        self.stub = LocalServer()
        self.client = Trawl(KEY, self.stub.url, timeout=5, max_retries=3, backoff_base=0.2)

    def tearDown(self) -> None:
        self.stub.close()


class RequestShapeTest(StubTestCase):
    def test_sends_the_key_json_and_drops_unset_options(self) -> None:
        self.stub.reply(200, {'status': 'ok', 'url': 'https://example.com/'})
        out = self.client.scrape('https://example.com/', formats=['markdown', 'links'], render=None, max_age=0)
        self.assertEqual(out, {'status': 'ok', 'url': 'https://example.com/'})
        (req,) = self.stub.requests
        self.assertEqual((req.method, req.path), ('POST', '/v1/scrape'))
        self.assertEqual(req.headers['authorization'], f'Bearer {KEY}')
        self.assertEqual(req.headers['content-type'], 'application/json')
        self.assertTrue(req.headers['user-agent'].startswith('trawl-python/'))
        # None is not sent (the service's default applies); extra options pass through.
        self.assertEqual(req.json(), {'url': 'https://example.com/', 'formats': ['markdown', 'links'], 'max_age': 0})

    def test_paths_quote_ids_and_queries_skip_none(self) -> None:
        for _ in range(4):
            self.stub.reply(200, {'status': 'ok'})
        self.client.get_job('job_../../account', cursor='abc=', limit=None)
        self.client.get_monitor_history('mon_1', 'price', limit=5)
        self.client.update_monitor('mon_1', conditions=None, state='paused')
        self.client.start_crawl('https://example.com/', limit=5000)
        paths = [r.path for r in self.stub.requests]
        self.assertEqual(paths[0], '/v1/jobs/job_..%2F..%2Faccount?cursor=abc%3D')
        self.assertEqual(paths[1], '/v1/monitors/mon_1/history?field=price&limit=5')
        self.assertEqual((self.stub.requests[2].method, self.stub.requests[2].json()), ('PATCH', {'conditions': None, 'state': 'paused'}))
        self.assertEqual(self.stub.requests[3].json(), {'url': 'https://example.com/', 'limit': 5000, 'async': True})

    def test_base_url_may_end_in_v1_and_the_key_never_shows(self) -> None:
        self.stub.reply(200, {'account_id': 'acc_1', 'email': 'a@b.c', 'credits': 3})
        c = Trawl(KEY, self.stub.url + '/v1/')
        self.assertEqual(c.account()['credits'], 3)
        self.assertEqual(self.stub.requests[0].path, '/v1/account')
        self.assertNotIn(KEY, repr(c))
        with self.assertRaises(ValueError):
            Trawl('', self.stub.url)
        with self.assertRaises(ValueError):
            Trawl(KEY, 'ftp://x')

    def test_replay_takes_an_aware_datetime(self) -> None:
        self.stub.reply(200, {'status': 'ok', 'replayed': 2})
        since = datetime(2026, 11, 25, 1, 0, tzinfo=timezone(timedelta(hours=1)))
        self.assertEqual(self.client.replay_webhooks(since, monitor_id='mon_x')['replayed'], 2)
        self.assertEqual(self.stub.requests[0].json(), {'since': '2026-11-25T00:00:00Z', 'monitor_id': 'mon_x'})
        with self.assertRaises(ValueError):
            self.client.replay_webhooks(datetime(2026, 1, 1))


class ErrorClassTest(StubTestCase):
    def test_each_code_is_its_class_with_status_error_detail(self) -> None:
        cases = [
            (400, 'invalid_request', InvalidRequestError),
            (401, 'unauthorized', AuthenticationError),
            (402, 'insufficient_credits', InsufficientCreditsError),
            (404, 'not_found', NotFoundError),
            (413, 'payload_too_large', InvalidRequestError),
            (422, 'invalid_schema', InvalidSchemaError),
            (422, 'action_failed', InvalidRequestError),
            (502, 'fetch_failed', FetchFailedError),
            (502, 'blocked', BlockedError),
            (500, 'internal_error', InternalServerError),
        ]
        client = Trawl(KEY, self.stub.url, max_retries=0)
        for status, code, cls in cases:
            self.stub.reply(status, {'error': code, 'detail': f'{code}: what to fix'}, {'X-Request-Id': 'req_abc'})
            with self.assertRaises(cls) as ctx:
                client.scrape('https://example.com/')
            e = ctx.exception
            self.assertIsInstance(e, TrawlError)
            self.assertEqual((e.status, e.error, e.detail, e.request_id), (status, code, f'{code}: what to fix', 'req_abc'))
            self.assertIn(code, str(e))

    def test_the_shape_is_the_typescript_sdks_too_code_and_every_fault(self) -> None:
        client = Trawl(KEY, self.stub.url, max_retries=0)
        faults = [
            {'field': 'url', 'detail': 'url: must be an http or https URL'},
            {'field': 'timeout_ms', 'detail': 'timeout_ms: must be an integer from 1000 to 120000'},
        ]
        self.stub.reply(400, {'error': 'invalid_request', 'detail': faults[0]['detail'], 'errors': faults})
        with self.assertRaises(InvalidRequestError) as ctx:
            client.scrape('https://example.com/')
        e = ctx.exception
        self.assertEqual((e.code, e.error), ('invalid_request', 'invalid_request'))
        self.assertEqual(e.errors, faults)
        self.stub.reply(404, {'error': 'not_found', 'detail': 'no job job_x'})
        with self.assertRaises(NotFoundError) as ctx:
            client.scrape('https://example.com/')
        self.assertIsNone(ctx.exception.errors)

    def test_a_gateway_page_is_classed_by_status_with_an_excerpt(self) -> None:
        client = Trawl(KEY, self.stub.url, max_retries=0)
        self.stub.reply(502, '<html><body><h1>502 Bad Gateway</h1></body></html>', {'Content-Type': 'text/html'})
        with self.assertRaises(UpstreamError) as ctx:
            client.account()
        self.assertEqual((ctx.exception.status, ctx.exception.error), (502, None))
        self.assertIn('502 Bad Gateway', ctx.exception.detail or '')


class RateLimitRetryTest(StubTestCase):
    def test_waits_retry_after_from_the_body_then_succeeds(self) -> None:
        self.stub.reply(429, {'error': 'rate_limited', 'retry_after': 1}, {'Retry-After': '1'})
        self.stub.reply(200, {'status': 'ok', 'url': 'https://example.com/'})
        t0 = time.monotonic()
        out = self.client.scrape('https://example.com/')  # a charging POST: 429 means not processed
        self.assertEqual(out['status'], 'ok')
        self.assertEqual(len(self.stub.requests), 2)
        gap = self.stub.requests[1].at - self.stub.requests[0].at
        self.assertGreaterEqual(gap, 1.0)
        self.assertLess(gap, 2.0)
        self.assertLess(time.monotonic() - t0, 3)

    def test_honours_the_retry_after_header_in_seconds_or_as_a_date(self) -> None:
        answers = [
            lambda: (429, {'Retry-After': '1'}, b'slow down'),
            # An HTTP date 3 s ahead, made when answering (whole seconds on the wire: 2–3 s).
            lambda: (429, {'Retry-After': format_datetime(datetime.now(timezone.utc) + timedelta(seconds=3), usegmt=True)}, b'slow down'),
            lambda: (200, {'Content-Type': 'application/json'}, b'{"jobs":[],"next_cursor":null}'),
        ]
        stub = LocalServer(lambda r: answers.pop(0)())
        try:
            self.assertEqual(Trawl(KEY, stub.url).list_jobs(), {'jobs': [], 'next_cursor': None})
            at = [r.at for r in stub.requests]
            self.assertEqual(len(at), 3)
            self.assertGreaterEqual(at[1] - at[0], 1.0)
            self.assertGreaterEqual(at[2] - at[1], 1.9)
        finally:
            stub.close()

    def test_gives_up_after_max_retries_and_when_asked_to_wait_too_long(self) -> None:
        client = Trawl(KEY, self.stub.url, max_retries=1, max_retry_wait=5)
        for _ in range(2):
            self.stub.reply(429, {'error': 'rate_limited', 'retry_after': 1})
        with self.assertRaises(RateLimitError) as ctx:
            client.account()
        self.assertEqual((ctx.exception.status, ctx.exception.retry_after), (429, 1.0))
        self.assertEqual(len(self.stub.requests), 2)
        self.stub.reply(429, {'error': 'rate_limited', 'retry_after': 30})
        t0 = time.monotonic()
        with self.assertRaises(RateLimitError) as ctx:
            client.account()
        self.assertLess(time.monotonic() - t0, 1)
        self.assertEqual(ctx.exception.retry_after, 30.0)
        self.assertEqual(len(self.stub.requests), 3)


class RedirectTest(StubTestCase):
    def test_a_redirect_to_another_origin_does_not_carry_the_key(self) -> None:
        elsewhere = LocalServer(lambda r: (200, {'Content-Type': 'application/json'}, b'{"account_id":"acc_x","credits":1}'))
        try:
            self.stub.reply(302, b'', {'Location': elsewhere.url + '/v1/account'})
            self.assertEqual(self.client.account()['account_id'], 'acc_x')
            (hop,) = elsewhere.requests
            self.assertNotIn('authorization', hop.headers)
            # Within the service's own origin the key goes along (a path moved, a trailing slash).
            self.stub.reply(301, b'', {'Location': self.stub.url + '/v1/account/'})
            self.stub.reply(200, {'account_id': 'acc_1', 'email': 'a@b.c', 'credits': 3})
            self.assertEqual(self.client.account()['credits'], 3)
            self.assertEqual(self.stub.requests[-1].headers.get('authorization'), f'Bearer {KEY}')
        finally:
            elsewhere.close()


class HostileRetryAfterTest(StubTestCase):
    def test_a_negative_nan_or_odd_retry_after_is_a_rate_limit_error_not_a_crash(self) -> None:
        client = Trawl(KEY, self.stub.url, max_retries=1, backoff_base=0.01)
        for body, headers in [
            (b'{"error":"rate_limited","retry_after":-5}', {}),
            (b'{"error":"rate_limited","retry_after":NaN}', {}),
            (b'{"error":"rate_limited","retry_after":-1}', {'Retry-After': '\u00b2'.encode('latin-1').decode('latin-1')}),
            (b'<html>slow down</html>', {'Retry-After': '-5'}),
        ]:
            self.stub.requests.clear()
            for _ in range(2):
                self.stub.script.append((429, {'Content-Type': 'application/json', **headers}, body))
            with self.assertRaises(RateLimitError, msg=body) as ctx:
                client.account()
            self.assertEqual(len(self.stub.requests), 2, body)
            self.assertIsNone(ctx.exception.retry_after, body)


class GatewayRetryTest(StubTestCase):
    def test_get_backs_off_exponentially_on_502_and_504(self) -> None:
        self.stub.reply(502, {'error': 'fetch_failed', 'detail': 'upstream'})
        self.stub.reply(504, {'error': 'timeout', 'detail': 'gateway timeout'})
        self.stub.reply(200, {'status': 'ok', 'job': {'job_id': 'job_x'}, 'pages': [], 'next_cursor': None})
        out = self.client.get_job('job_x')
        self.assertEqual(out['job']['job_id'], 'job_x')
        at = [r.at for r in self.stub.requests]
        self.assertEqual(len(at), 3)
        # backoff_base 0.2: the first wait is 0.1–0.2 s, the second 0.2–0.4 s (jitter: 50–100 %).
        self.assertGreaterEqual(at[1] - at[0], 0.1)
        self.assertLess(at[1] - at[0], 0.5)
        self.assertGreaterEqual(at[2] - at[1], 0.2)
        self.assertLess(at[2] - at[1], 0.8)

    def test_delete_patch_and_replay_are_retried_too(self) -> None:
        for call in (lambda: self.client.cancel_job('job_x'), lambda: self.client.update_monitor('mon_x', state='paused'), lambda: self.client.replay_webhooks('2026-01-01T00:00:00Z')):
            before = len(self.stub.requests)
            self.stub.reply(502, 'bad gateway')
            self.stub.reply(200, {'status': 'ok'})
            self.assertEqual(call(), {'status': 'ok'})
            self.assertEqual(len(self.stub.requests) - before, 2)

    def test_charging_and_job_starting_posts_are_not_retried(self) -> None:
        calls = [
            ('scrape', lambda: self.client.scrape('https://example.com/')),
            ('start_batch_scrape', lambda: self.client.start_batch_scrape(['https://example.com/'])),
            ('start_crawl', lambda: self.client.start_crawl('https://example.com/')),
            ('create_monitor', lambda: self.client.create_monitor('https://example.com/', '1h', ['title'], 'https://example.com/hook')),
            ('run_monitor', lambda: self.client.run_monitor('mon_x')),
            ('redeliver', lambda: self.client.redeliver('mon_x', 'dlv_x')),
        ]
        for status in (502, 504):
            for name, call in calls:
                before = len(self.stub.requests)
                self.stub.reply(status, {'error': 'timeout' if status == 504 else 'fetch_failed', 'detail': 'x'})
                self.stub.reply(200, {'status': 'ok'})
                with self.assertRaises(TrawlError, msg=name) as ctx:
                    call()
                self.assertEqual(ctx.exception.status, status, name)
                self.assertEqual(len(self.stub.requests) - before, 1, f'{name} was sent again after {status}')
                self.stub.script.clear()

    def test_max_retries_bounds_the_attempts(self) -> None:
        client = Trawl(KEY, self.stub.url, max_retries=2, backoff_base=0.05)
        for _ in range(5):
            self.stub.reply(504, {'error': 'timeout', 'detail': 'slow'})
        with self.assertRaises(RequestTimeoutError):
            client.list_monitors()
        self.assertEqual(len(self.stub.requests), 3)
        none = Trawl(KEY, self.stub.url, max_retries=0)
        with self.assertRaises(RequestTimeoutError):
            none.list_monitors()
        self.assertEqual(len(self.stub.requests), 4)


class ConnectionTest(StubTestCase):
    def test_a_read_timeout_is_a_connection_error_retried_only_when_safe(self) -> None:
        self.stub.delay = 0.6
        client = Trawl(KEY, self.stub.url, timeout=0.2, max_retries=1, backoff_base=0.05)
        with self.assertRaises(APIConnectionError):
            client.account()
        self.assertEqual(len(self.stub.requests), 2)
        with self.assertRaises(APIConnectionError):
            client.scrape('https://example.com/')
        self.assertEqual(len(self.stub.requests), 3)

    def test_a_refused_connection_is_retried_then_raised(self) -> None:
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
        s.close()  # nothing listens there now
        client = Trawl(KEY, f'http://127.0.0.1:{port}', max_retries=2, backoff_base=0.05)
        t0 = time.monotonic()
        with self.assertRaises(APIConnectionError) as ctx:
            client.scrape('https://example.com/')
        self.assertIsNone(ctx.exception.status)
        self.assertGreaterEqual(time.monotonic() - t0, 0.05)  # it backed off between tries
        self.assertIn(f'127.0.0.1:{port}', str(ctx.exception))


class JobPollingTest(StubTestCase):
    def job(self, state: str, done: int, queued: int) -> dict:
        return {'status': 'ok', 'job': {'job_id': 'job_1', 'kind': 'batch', 'state': state, 'progress': {'done': done, 'failed': 0, 'queued': queued}}, 'pages': [], 'next_cursor': 'c'}

    def test_wait_for_job_reports_each_change_once(self) -> None:
        for state, done, queued in [('queued', 0, 3), ('running', 1, 2), ('running', 1, 2), ('completed', 3, 0)]:
            self.stub.reply(200, self.job(state, done, queued))
        seen = []
        job = self.client.wait_for_job({'status': 'ok', 'job': {'job_id': 'job_1'}}, on_progress=seen.append, poll_interval=0.01)
        self.assertEqual(job['state'], 'completed')
        self.assertEqual([(j['state'], j['progress']['done']) for j in seen], [('queued', 0), ('running', 1), ('completed', 3)])
        self.assertEqual(len(self.stub.requests), 4)
        self.assertTrue(all(r.path == '/v1/jobs/job_1?limit=1' for r in self.stub.requests))

    def test_wait_for_job_times_out_without_cancelling(self) -> None:
        stub = LocalServer(lambda r: (200, {'Content-Type': 'application/json'}, json.dumps(self.job('running', 1, 2)).encode()))
        try:
            client = Trawl(KEY, stub.url)
            with self.assertRaises(JobTimeoutError) as ctx:
                client.wait_for_job('job_1', poll_interval=0.05, timeout=0.3)
            self.assertEqual(ctx.exception.body['state'], 'running')
            self.assertTrue(all(r.method == 'GET' for r in stub.requests))
        finally:
            stub.close()

    def test_iter_pages_follows_cursors_until_the_job_ends(self) -> None:
        self.stub.reply(200, {'job': {}, 'pages': [{'url': 'a'}, {'url': 'b'}], 'next_cursor': 'c2'})
        self.stub.reply(200, {'job': {}, 'pages': [{'url': 'c'}], 'next_cursor': 'c3'})  # caught up, job running
        self.stub.reply(200, {'job': {}, 'pages': [], 'next_cursor': 'c3'})
        self.stub.reply(200, {'job': {}, 'pages': [{'url': 'd'}], 'next_cursor': None})
        pages = list(self.client.iter_pages('job_1', page_size=2, poll_interval=0.01))
        self.assertEqual([p['url'] for p in pages], ['a', 'b', 'c', 'd'])
        self.assertEqual([r.path for r in self.stub.requests], ['/v1/jobs/job_1?limit=2', '/v1/jobs/job_1?cursor=c2&limit=2', '/v1/jobs/job_1?cursor=c3&limit=2', '/v1/jobs/job_1?cursor=c3&limit=2'])
        # Without follow it stops at what is written so far.
        self.stub.reply(200, {'job': {}, 'pages': [{'url': 'a'}], 'next_cursor': 'c2'})
        self.assertEqual(len(list(self.client.iter_pages('job_1', page_size=2, follow=False))), 1)


class PackageTest(unittest.TestCase):
    def test_exports(self) -> None:
        for name in trawl.__all__:
            self.assertTrue(hasattr(trawl, name), name)
        self.assertRegex(trawl.__version__, r'^\d+\.\d+\.\d+$')


if __name__ == '__main__':
    unittest.main()
