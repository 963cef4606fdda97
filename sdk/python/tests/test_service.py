"""Every method of the client against the real service (started by test/sdk/python.test.ts with a
local fixture site, a fake search provider, a fake Meta Graph API and pinned marketplace hosts).

Environment: TRAWL_TEST_URL, TRAWL_TEST_KEY (plenty of credits), TRAWL_TEST_OTHER_KEY (another
account), TRAWL_TEST_POOR_KEY (no credits), TRAWL_TEST_SLOW_KEY (60 requests a minute),
TRAWL_TEST_WEBHOOK_SECRET (TRAWL_TEST_KEY's account), TRAWL_TEST_ROTATED_KEY with
TRAWL_TEST_ROTATED_SECRET / TRAWL_TEST_ROTATED_OLD_SECRET (an account mid-rotation),
TRAWL_TEST_FIXTURE_URL, TRAWL_TEST_MARKETPLACE_URL, TRAWL_TEST_META_ADVERTISER.
"""
from __future__ import annotations

import time
import unittest
import uuid
from datetime import datetime, timedelta, timezone
from typing import Dict, List, Optional, Tuple

from _support import LocalServer, Recorded, env, until

from trawl import (
    AuthenticationError,
    FetchFailedError,
    InsufficientCreditsError,
    InvalidRequestError,
    InvalidSchemaError,
    NotFoundError,
    RateLimitError,
    Trawl,
    WebhookVerificationError,
    verify_webhook,
)


def client(key_var: str = 'TRAWL_TEST_KEY', **kw) -> Trawl:
    return Trawl(env(key_var), env('TRAWL_TEST_URL'), **kw)


class ContentEndpointsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.c = client()
        cls.fx = env('TRAWL_TEST_FIXTURE_URL')

    def test_account(self) -> None:
        a = self.c.account()
        self.assertTrue(a['account_id'].startswith('acc_'))
        self.assertIn('@', a['email'])
        self.assertIsInstance(a['credits'], int)

    def test_scrape_formats_and_schema(self) -> None:
        r = self.c.scrape(f'{self.fx}/article', formats=['markdown', 'html', 'links'], only_main_content=True, render='http', timeout_ms=10000)
        self.assertEqual((r['status'], r['url']), ('ok', f'{self.fx}/article'))
        self.assertIn('lanterns glow at the bottom of the sea', r['markdown'])
        self.assertIn('<h1>Deep sea lanterns</h1>', r['html'])
        self.assertIn(f'{self.fx}/docs/1', r['links'])
        self.assertEqual(r['metadata']['title'], 'Deep sea lanterns')
        j = self.c.scrape(f'{self.fx}/product', schema={'name': 'string', 'price': 'number', 'in_stock': 'boolean'})
        self.assertEqual(j['json'], {'name': 'Deep Sea Widget', 'price': 19.99, 'in_stock': True})

    def test_scrape_charges_one_credit_and_failures_none(self) -> None:
        before = self.c.account()['credits']
        self.c.scrape(f'{self.fx}/article')
        with self.assertRaises(FetchFailedError) as ctx:
            self.c.scrape(f'{self.fx}/missing')
        self.assertEqual((ctx.exception.status, ctx.exception.error), (502, 'fetch_failed'))
        self.assertIn('404', ctx.exception.detail)
        self.assertTrue(ctx.exception.request_id.startswith('req_'))
        self.assertEqual(self.c.account()['credits'], before - 1)

    def test_crawl(self) -> None:
        r = self.c.crawl(f'{self.fx}/', max_depth=1, limit=4, use_sitemap=False)
        urls = [p['url'] for p in r['pages']]
        self.assertEqual(urls[0], f'{self.fx}/')
        self.assertEqual(len(urls), 4)
        self.assertIn(f'{self.fx}/article', urls)
        self.assertEqual(r['total'], 4)
        self.assertTrue(r['truncated'])
        self.assertEqual([p['depth'] for p in r['pages']], [0, 1, 1, 1])

    def test_search(self) -> None:
        r = self.c.search('deep sea lanterns glow', limit=2)
        self.assertEqual(r['query'], 'deep sea lanterns glow')
        self.assertEqual([x['citation'] for x in r['results']], ['[1]', '[2]'])
        self.assertEqual(r['results'][0]['url'], f'{self.fx}/article')
        self.assertIn('lanterns glow', r['results'][0]['highlights'][0]['text'])

    def test_extract(self) -> None:
        r = self.c.extract([f'{self.fx}/product', f'{self.fx}/missing'], {'name': 'string', 'price': 'number'})
        self.assertEqual(r['data'], {'name': 'Deep Sea Widget', 'price': 19.99})
        self.assertEqual([x['status'] for x in r['results']], ['ok', 'error'])
        self.assertEqual(r['results'][1]['error'], 'fetch_failed')

    def test_map(self) -> None:
        r = self.c.map(f'{self.fx}/', search='docs', use_sitemap=False)
        urls = [link['url'] for link in r['links']]
        self.assertIn(f'{self.fx}/article', urls)
        self.assertTrue(urls[0].startswith(f'{self.fx}/docs/'), urls)
        self.assertGreaterEqual(r['total'], 4)

    def test_marketplace(self) -> None:
        url = env('TRAWL_TEST_MARKETPLACE_URL')
        r = self.c.marketplace('amazon_de', url)
        self.assertEqual(r['marketplace'], 'amazon_de')
        self.assertEqual((r['product']['price'], r['product']['currency'], r['product']['list_price']), (1049.99, 'EUR', 1299))
        basic = self.c.marketplace('amazon_de', url, mode='basic')
        self.assertEqual(sorted(basic['product']), ['availability', 'currency', 'id', 'in_stock', 'price', 'title', 'url'])
        with self.assertRaises(InvalidRequestError) as ctx:
            self.c.marketplace('amazon_xx', url)
        self.assertTrue(ctx.exception.detail.startswith('marketplace: '))

    def test_meta_ads(self) -> None:
        r = self.c.meta_ads(env('TRAWL_TEST_META_ADVERTISER'), 'US', platforms=['facebook', 'instagram'], limit=10)
        self.assertEqual((r['source'], r['page']['id'], r['total']), ('graph_api', '424242', 3))
        self.assertEqual([a['id'] for a in r['ads']], ['9001', '9002', '9003'])
        self.assertEqual(r['ads'][0]['body'], 'Lanterns for the deep sea')
        with self.assertRaises(NotFoundError):
            self.c.meta_ads('nobody-here', 'US')


class ErrorsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.c = client()
        cls.fx = env('TRAWL_TEST_FIXTURE_URL')

    def test_a_bad_key_is_an_authentication_error(self) -> None:
        bad = Trawl('trawl_' + 'x' * 40, env('TRAWL_TEST_URL'))
        with self.assertRaises(AuthenticationError) as ctx:
            bad.account()
        self.assertEqual((ctx.exception.status, ctx.exception.error), (401, 'unauthorized'))
        # The server names the cause (issue 43).
        self.assertIn('this API key is not known to this server', ctx.exception.detail)

    def test_no_credits(self) -> None:
        poor = client('TRAWL_TEST_POOR_KEY')
        with self.assertRaises(InsufficientCreditsError) as ctx:
            poor.scrape(f'{self.fx}/article')
        self.assertEqual((ctx.exception.status, ctx.exception.error), (402, 'insufficient_credits'))

    def test_invalid_requests_name_the_field(self) -> None:
        cases = [
            (lambda: self.c.scrape('ftp://example.com/x'), 'url: '),
            (lambda: self.c.scrape(f'{self.fx}/article', formt=['markdown']), 'formt: '),
            (lambda: self.c.search('x', limit=50), 'limit: '),
            (lambda: self.c.list_jobs(limit=1000), 'limit: '),
        ]
        for call, prefix in cases:
            with self.assertRaises(InvalidRequestError) as ctx:
                call()
            self.assertEqual((ctx.exception.status, ctx.exception.error), (400, 'invalid_request'))
            self.assertTrue(ctx.exception.detail.startswith(prefix), ctx.exception.detail)

    def test_invalid_schema(self) -> None:
        with self.assertRaises(InvalidSchemaError) as ctx:
            self.c.extract([f'{self.fx}/product'], {'price': 'money'})
        self.assertEqual((ctx.exception.status, ctx.exception.error), (422, 'invalid_schema'))
        self.assertTrue(ctx.exception.detail.startswith('schema.price'))

    def test_not_found(self) -> None:
        for call in (lambda: self.c.get_job('job_' + 'a' * 20), lambda: self.c.get_monitor('mon_' + 'a' * 20), lambda: self.c.cancel_job('job_nope')):
            with self.assertRaises(NotFoundError) as ctx:
                call()
            self.assertEqual(ctx.exception.status, 404)


class JobsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.c = client()
        cls.other = client('TRAWL_TEST_OTHER_KEY')
        cls.fx = env('TRAWL_TEST_FIXTURE_URL')

    def test_async_crawl_waited_with_progress_then_paged(self) -> None:
        started = self.c.start_crawl(f'{self.fx}/', max_depth=1, limit=4, use_sitemap=False)
        job = started['job']
        self.assertEqual((started['status'], job['kind'], job['state']), ('ok', 'crawl', 'queued'))
        seen: List[dict] = []
        ended = self.c.wait_for_job(started, on_progress=seen.append, poll_interval=0.05, timeout=30)
        self.assertEqual(ended['state'], 'completed')
        self.assertEqual(ended['progress'], {'done': 4, 'failed': 0, 'queued': 0})
        self.assertEqual(seen[-1], ended)
        pages = list(self.c.iter_pages(job['job_id'], page_size=3))
        self.assertEqual(len({p['url'] for p in pages}), 4)
        self.assertIn(f'{self.fx}/', [p['url'] for p in pages])
        self.assertIn(job['job_id'], [j['job_id'] for j in self.c.list_jobs(limit=100)['jobs']])
        self.assertIn(job['job_id'], [j['job_id'] for j in self.c.iter_jobs(page_size=1)])
        with self.assertRaises(NotFoundError):
            self.other.get_job(job['job_id'])

    def test_batch_scrape_reports_progress_until_done(self) -> None:
        urls = [f'{self.fx}/slow?i={i}&run={uuid.uuid4().hex}' for i in range(6)]
        seen: List[Tuple[str, int]] = []
        out = self.c.batch_scrape(urls, formats=['markdown'], on_progress=lambda j: seen.append((j['state'], j['progress']['done'])), poll_interval=0.05, wait_timeout=30)
        self.assertEqual(out['job']['state'], 'completed')
        self.assertEqual(sorted(p['url'] for p in out['pages']), sorted(urls))
        self.assertTrue(all('takes its time' in p['markdown'] for p in out['pages']))
        # Called on each change: the job was seen before it ended, counts only grow, the last is the end.
        self.assertGreaterEqual(len(seen), 2, seen)
        self.assertIn(seen[0][0], ('queued', 'running'))
        self.assertEqual([d for _, d in seen], sorted(d for _, d in seen))
        self.assertEqual(seen[-1], ('completed', 6))

    def test_cancel_keeps_pages_done(self) -> None:
        urls = [f'{self.fx}/slow?i={i}&run={uuid.uuid4().hex}' for i in range(60)]
        job = self.c.start_batch_scrape(urls)['job']
        until(lambda: self.c.get_job(job['job_id'], limit=1)['job']['progress']['done'] >= 2, what='two pages done')
        with self.assertRaises(NotFoundError):
            self.other.cancel_job(job['job_id'])
        cancelled = self.c.cancel_job(job['job_id'])['job']
        self.assertEqual(cancelled['state'], 'cancelled')
        self.assertEqual(self.c.wait_for_job(job, poll_interval=0.05, timeout=5)['state'], 'cancelled')
        pages = list(self.c.iter_pages(job['job_id']))  # an ended job: iteration ends by itself
        self.assertGreaterEqual(len(pages), 2)
        self.assertLess(len(pages), 60)


class Sink:
    """A webhook receiver on 127.0.0.1 (the service may call it: TRAWL_ALLOW_PRIVATE_NETWORK)."""

    def __init__(self) -> None:
        self.failing = False
        self.server = LocalServer(lambda r: (500, {}, b'down') if self.failing else (204, {}, b''))
        self.url = self.server.url + '/hook'

    def deliveries(self, n: int) -> List[Recorded]:
        return self.server.wait_for(n, timeout=30)[:n]

    def close(self) -> None:
        self.server.close()


def monitor_with_event(c: Trawl, fx: str, sink: Sink) -> Tuple[str, dict]:
    """A paused monitor on a page whose price moves on every fetch, run twice: one change event."""
    m = c.create_monitor(f'{fx}/ticker?m={uuid.uuid4().hex}', '1h', ['price'], sink.url, schema={'price': 'number'})['monitor']
    c.update_monitor(m['monitor_id'], state='paused')  # runs only when the test says
    first = c.run_monitor(m['monitor_id'])['run']
    second = c.run_monitor(m['monitor_id'])['run']
    assert first['status'] == 'succeeded' and first['event_id'] is None, first
    assert second['status'] == 'succeeded' and second['event_id'], second
    return m['monitor_id'], second


def headers_of(r: Recorded, *names: str) -> Dict[str, str]:
    return {k: v for k, v in r.headers.items() if not names or k in names}


class MonitorsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.c = client()
        cls.other = client('TRAWL_TEST_OTHER_KEY')
        cls.fx = env('TRAWL_TEST_FIXTURE_URL')
        cls.secret = env('TRAWL_TEST_WEBHOOK_SECRET')

    def setUp(self) -> None:
        self.sink = Sink()

    def tearDown(self) -> None:
        self.sink.close()

    def test_crud_runs_history_deliveries_redeliver_and_verified_webhooks(self) -> None:
        created = self.c.create_monitor(f'{self.fx}/ticker?m={uuid.uuid4().hex}', '1h', ['price'], self.sink.url, schema={'price': 'number'}, events=['change.detected'])
        m = created['monitor']
        mid = m['monitor_id']
        self.assertEqual((created['status'], m['state'], m['interval_seconds'], m['watch']), ('ok', 'active', 3600, ['price']))
        self.assertEqual(self.c.update_monitor(mid, state='paused')['monitor']['state'], 'paused')
        self.assertIn(mid, [x['monitor_id'] for x in self.c.list_monitors(limit=100)['monitors']])
        self.assertIn(mid, [x['monitor_id'] for x in self.c.iter_monitors(page_size=1)])
        with self.assertRaises(NotFoundError):
            self.other.get_monitor(mid)

        first = self.c.run_monitor(mid)['run']
        second = self.c.run_monitor(mid)['run']
        self.assertEqual((first['status'], first['trigger'], first['event_id']), ('succeeded', 'manual', None))
        price1, price2 = first['values']['price'], second['values']['price']
        self.assertEqual(second['changes'], {'price': {'from': price1, 'to': price2}})

        detail = self.c.get_monitor(mid)['monitor']
        self.assertEqual(detail['last_values'], {'price': price2})
        self.assertEqual([r['run_id'] for r in self.c.list_monitor_runs(mid, limit=10)['runs']], [second['run_id'], first['run_id']])
        history = self.c.get_monitor_history(mid, 'price', limit=10)
        self.assertEqual((history['field'], [p['value'] for p in history['points']]), ('price', [price1, price2]))

        # The delivery, verified over the raw bytes with the account's secret.
        (got,) = self.sink.deliveries(1)
        event = verify_webhook(got.body, got.headers, self.secret)
        self.assertEqual((event['id'], event['event'], event['monitor_id'], event['sequence']), (second['event_id'], 'change.detected', mid, 1))
        self.assertEqual(event['changes'], {'price': {'from': price1, 'to': price2}})
        self.assertEqual(verify_webhook(got.body, headers_of(got, 'x-service-signature'), self.secret, allow_seed_signature=True), event)
        with self.assertRaises(WebhookVerificationError):  # stripped to its seed header: refused unless asked
            verify_webhook(got.body, headers_of(got, 'x-service-signature'), self.secret)
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(got.body.replace(str(price2).encode(), b'0.01'), got.headers, self.secret)
        stamp = int(got.headers['webhook-timestamp'])
        with self.assertRaises(WebhookVerificationError) as ctx:
            verify_webhook(got.body, got.headers, self.secret, now=stamp + 301)
        self.assertEqual(ctx.exception.error, 'stale_timestamp')

        delivery = until(lambda: next((d for d in self.c.list_deliveries(mid, limit=10)['deliveries'] if d['state'] == 'succeeded'), None), what='a succeeded delivery')
        self.assertEqual((delivery['event_id'], delivery['attempts']), (event['id'], 1))
        again = self.c.redeliver(mid, delivery['delivery_id'])['delivery']
        self.assertEqual(again['delivery_id'], delivery['delivery_id'])
        self.assertTrue(any(a['manual'] for a in again['attempt_log']))
        second_copy = self.sink.deliveries(2)[1]
        self.assertEqual(second_copy.headers['webhook-id'], got.headers['webhook-id'])
        self.assertEqual(second_copy.body, got.body)
        self.assertEqual(verify_webhook(second_copy.body, second_copy.headers, self.secret)['id'], event['id'])

        self.assertEqual(self.c.update_monitor(mid, interval='2h')['monitor']['interval'], '2h')
        self.assertEqual(self.c.delete_monitor(mid), {'status': 'ok', 'monitor_id': mid, 'deleted': True})
        with self.assertRaises(NotFoundError):
            self.c.get_monitor(mid)

    def test_replay_resends_failed_deliveries(self) -> None:
        self.sink.failing = True
        mid, run = monitor_with_event(self.c, self.fx, self.sink)
        failed = until(lambda: next((d for d in self.c.list_deliveries(mid)['deliveries'] if d['state'] == 'failed'), None), what='the delivery to fail')
        self.assertEqual(failed['event_id'], run['event_id'])
        tries = len(self.sink.server.requests)
        self.sink.failing = False
        since = datetime.now(timezone.utc) - timedelta(hours=1)
        self.assertEqual(self.c.replay_webhooks(since, monitor_id=mid), {'status': 'ok', 'replayed': 1})
        replayed = self.sink.deliveries(tries + 1)[tries]
        self.assertEqual(verify_webhook(replayed.body, replayed.headers, self.secret)['id'], run['event_id'])
        until(lambda: self.c.list_deliveries(mid)['deliveries'][0]['state'] == 'succeeded', what='the replayed delivery to succeed')
        with self.assertRaises(InvalidRequestError):
            self.c.replay_webhooks('yesterday')
        self.c.delete_monitor(mid)

    def test_rotated_secret_deliveries_verify_with_old_or_new(self) -> None:
        rotated = client('TRAWL_TEST_ROTATED_KEY')
        new, old = env('TRAWL_TEST_ROTATED_SECRET'), env('TRAWL_TEST_ROTATED_OLD_SECRET')
        mid, run = monitor_with_event(rotated, self.fx, self.sink)
        (got,) = self.sink.deliveries(1)
        self.assertEqual(len(got.headers['webhook-signature'].split(' ')), 2)
        for secret in (new, old, [old, new]):
            self.assertEqual(verify_webhook(got.body, got.headers, secret)['id'], run['event_id'])
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(got.body, got.headers, self.secret)  # another account's secret
        # The seed header carries the new secret only.
        seed = headers_of(got, 'x-service-signature')
        self.assertEqual(verify_webhook(got.body, seed, new, allow_seed_signature=True)['id'], run['event_id'])
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(got.body, seed, old, allow_seed_signature=True)
        rotated.delete_monitor(mid)


class RateLimitTest(unittest.TestCase):
    def test_a_429_is_waited_out_for_retry_after_seconds(self) -> None:
        strict = client('TRAWL_TEST_SLOW_KEY', max_retries=0)
        limited: Optional[RateLimitError] = None
        for _ in range(200):  # a 60/min bucket holds 60 requests
            try:
                strict.account()
            except RateLimitError as e:
                limited = e
                break
        self.assertIsNotNone(limited, 'the key was never rate limited')
        assert limited is not None
        self.assertEqual((limited.status, limited.error), (429, 'rate_limited'))
        self.assertGreaterEqual(limited.retry_after, 1)

        patient = client('TRAWL_TEST_SLOW_KEY', max_retries=3)
        waits: List[float] = []
        real_sleep = patient._http.sleep
        patient._http.sleep = lambda s: (waits.append(s), real_sleep(s))[1]
        t0 = time.monotonic()
        self.assertIn('credits', patient.account())
        self.assertGreaterEqual(len(waits), 1)
        self.assertGreaterEqual(waits[0], 1.0)
        self.assertGreaterEqual(time.monotonic() - t0, 1.0)


if __name__ == '__main__':
    unittest.main()
