"""The Trawl client: one method per endpoint of the HTTP API (docs/API.md).

Every endpoint method returns the answer's JSON body as a plain ``dict``, with the field names
of the HTTP reference (``{"status": "ok", "url": ..., "markdown": ..., "metadata": {...}}``).
Options beyond the named parameters pass through as keyword arguments, so a field the service
adds later needs no new client; the service refuses unknown fields with a 400 naming them.
Options left as ``None`` are not sent (the service's default applies).
"""
from __future__ import annotations

import json
import os
import time
import urllib.parse
from datetime import datetime, timezone
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from ._transport import JSON, Transport, __version__
from .errors import JobTimeoutError

__all__ = ['Trawl', 'JOB_ENDED_STATES']

JOB_ENDED_STATES = frozenset({'completed', 'failed', 'cancelled'})

JobRef = Union[str, Mapping[str, Any]]
ProgressCallback = Callable[[JSON], None]

# Room beyond a request's own time budget (timeout_ms) for the answer to travel back.
_SLACK_SECONDS = 15.0


def _compact(fields: Mapping[str, Any]) -> JSON:
    """The request body: fields set to None are left out so the service's defaults apply."""
    return {k: v for k, v in fields.items() if v is not None}


def _seg(value: str) -> str:
    """One path segment: ids are quoted so they can never change the path."""
    return urllib.parse.quote(str(value), safe='')


def _job_id(job: JobRef) -> str:
    """A job id from an id, a job object, or the answer that started the job."""
    if isinstance(job, str):
        return job
    if isinstance(job.get('job'), Mapping):
        job = job['job']
    job_id = job.get('job_id')
    if not isinstance(job_id, str):
        raise ValueError('job: pass a job id ("job_…"), a job object or the answer of start_crawl/start_batch_scrape')
    return job_id


def _iso(since: Union[str, datetime]) -> str:
    if isinstance(since, str):
        return since
    if since.tzinfo is None:
        raise ValueError('since: a datetime needs a time zone (e.g. datetime.now(timezone.utc)); the API takes a time with its offset')
    return since.astimezone(timezone.utc).isoformat().replace('+00:00', 'Z')


class Trawl:
    """A client for one Trawl service and API key.

    Args:
        api_key: a ``trawl_…`` key (default: the ``TRAWL_API_KEY`` environment variable).
        base_url: the service's address (default: ``TRAWL_API_URL``, else ``http://127.0.0.1:3000``).
        timeout: seconds to wait for an answer; a request with ``timeout_ms`` waits at least
            that budget plus 15 s.
        max_retries: how many times one call is sent again after a 429, or after a 502/503/504
            or a lost connection when the call is safe to repeat (0 turns retries off).
        backoff_base: first backoff step in seconds (doubles each retry, with jitter).
        max_backoff: the longest backoff step in seconds.
        max_retry_wait: a 429 asking to wait longer than this is raised instead of waited out.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = 120.0,
        max_retries: int = 3,
        *,
        backoff_base: float = 0.5,
        max_backoff: float = 8.0,
        max_retry_wait: float = 60.0,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get('TRAWL_API_KEY')
        if not key:
            raise ValueError("api_key: pass Trawl(api_key='trawl_…') or set TRAWL_API_KEY")
        if max_retries < 0:
            raise ValueError('max_retries: must be 0 or more')
        url = base_url or os.environ.get('TRAWL_API_URL') or 'http://127.0.0.1:3000'
        if not url.startswith(('http://', 'https://')):
            raise ValueError(f'base_url: must start with http:// or https:// (got {url[:40]!r})')
        self._http = Transport(key, url, timeout, max_retries, backoff_base, max_backoff, max_retry_wait, f'trawl-python/{__version__}')

    def __repr__(self) -> str:
        # Never the key.
        return f'Trawl(base_url={self._http.base[:-3]!r})'

    @property
    def base_url(self) -> str:
        return self._http.base[: -len('/v1')]

    # -- low level ----------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        body: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        *,
        idempotent: Optional[bool] = None,
    ) -> JSON:
        """Call any ``/v1`` endpoint: ``client.request('GET', '/jobs', query={'limit': 5})``.

        ``idempotent`` (default: true for GET, DELETE and PATCH) lets 502/504 be retried.
        """
        m = method.upper()
        safe = m in ('GET', 'DELETE', 'PATCH', 'HEAD') if idempotent is None else idempotent
        budget = body.get('timeout_ms') if body else None
        timeout = None
        if isinstance(budget, (int, float)) and not isinstance(budget, bool):
            timeout = max(self._http.timeout, budget / 1000 + _SLACK_SECONDS)
        return self._http.request(m, path, body=body, query=query, idempotent=safe, timeout=timeout)

    def _post(self, path: str, body: Mapping[str, Any], *, idempotent: bool = False) -> JSON:
        return self.request('POST', path, body, idempotent=idempotent)

    # -- one page, a site, the web ------------------------------------------------------------

    def scrape(
        self,
        url: str,
        *,
        formats: Optional[Sequence[str]] = None,
        schema: Optional[Mapping[str, Any]] = None,
        only_main_content: Optional[bool] = None,
        render: Optional[str] = None,
        timeout_ms: Optional[int] = None,
        wait_for: Optional[Union[str, int]] = None,
        **options: Any,
    ) -> JSON:
        """``POST /v1/scrape``: one page as markdown/html/links/json. 1 credit."""
        return self._post('/scrape', _compact(dict(url=url, formats=formats, schema=schema, only_main_content=only_main_content, render=render, timeout_ms=timeout_ms, wait_for=wait_for, **options)))

    def crawl(
        self,
        url: str,
        *,
        max_depth: Optional[int] = None,
        limit: Optional[int] = None,
        include_paths: Optional[Sequence[str]] = None,
        exclude_paths: Optional[Sequence[str]] = None,
        allow_subdomains: Optional[bool] = None,
        respect_robots: Optional[bool] = None,
        use_sitemap: Optional[bool] = None,
        formats: Optional[Sequence[str]] = None,
        schema: Optional[Mapping[str, Any]] = None,
        only_main_content: Optional[bool] = None,
        timeout_ms: Optional[int] = None,
        **options: Any,
    ) -> JSON:
        """``POST /v1/crawl`` synchronously (limit ≤ 1,000): ``{"pages", "total", "truncated", "errors"}``. 1 credit."""
        return self._post('/crawl', _compact(dict(url=url, max_depth=max_depth, limit=limit, include_paths=include_paths, exclude_paths=exclude_paths, allow_subdomains=allow_subdomains, respect_robots=respect_robots, use_sitemap=use_sitemap, formats=formats, schema=schema, only_main_content=only_main_content, timeout_ms=timeout_ms, **options)))

    def search(
        self,
        query: str,
        *,
        limit: Optional[int] = None,
        scrape: Optional[bool] = None,
        country: Optional[str] = None,
        language: Optional[str] = None,
        timeout_ms: Optional[int] = None,
        **options: Any,
    ) -> JSON:
        """``POST /v1/search``: re-ranked results with citations and highlights. 1 credit."""
        return self._post('/search', _compact(dict(query=query, limit=limit, scrape=scrape, country=country, language=language, timeout_ms=timeout_ms, **options)))

    def extract(
        self,
        urls: Sequence[str],
        schema: Mapping[str, Any],
        *,
        prompt: Optional[str] = None,
        render: Optional[str] = None,
        timeout_ms: Optional[int] = None,
        **options: Any,
    ) -> JSON:
        """``POST /v1/extract``: schema-shaped JSON from 1–20 URLs, merged in ``data``. 1 credit."""
        return self._post('/extract', _compact(dict(urls=list(urls), schema=schema, prompt=prompt, render=render, timeout_ms=timeout_ms, **options)))

    def map(
        self,
        url: str,
        *,
        limit: Optional[int] = None,
        search: Optional[str] = None,
        use_sitemap: Optional[bool] = None,
        allow_subdomains: Optional[bool] = None,
        timeout_ms: Optional[int] = None,
        **options: Any,
    ) -> JSON:
        """``POST /v1/map``: a site's URLs (``links``, ``total``) without content. 1 credit."""
        return self._post('/map', _compact(dict(url=url, limit=limit, search=search, use_sitemap=use_sitemap, allow_subdomains=allow_subdomains, timeout_ms=timeout_ms, **options)))

    def marketplace(
        self,
        marketplace: str,
        url: str,
        *,
        mode: Optional[str] = None,
        render: Optional[str] = None,
        timeout_ms: Optional[int] = None,
        **options: Any,
    ) -> JSON:
        """``POST /v1/marketplace``: a product record (``product``, or ``products`` for a results page). 1 credit."""
        return self._post('/marketplace', _compact(dict(marketplace=marketplace, url=url, mode=mode, render=render, timeout_ms=timeout_ms, **options)))

    def meta_ads(
        self,
        advertiser: str,
        country: str,
        *,
        active_status: Optional[str] = None,
        platforms: Optional[Sequence[str]] = None,
        limit: Optional[int] = None,
        timeout_ms: Optional[int] = None,
        **options: Any,
    ) -> JSON:
        """``POST /v1/meta-ads``: an advertiser's ads from the Ad Library. 1 credit."""
        return self._post('/meta-ads', _compact(dict(advertiser=advertiser, country=country, active_status=active_status, platforms=list(platforms) if platforms is not None else None, limit=limit, timeout_ms=timeout_ms, **options)))

    # -- jobs -----------------------------------------------------------------------------------

    def start_crawl(self, url: str, **options: Any) -> JSON:
        """``POST /v1/crawl`` with ``"async": true`` (limit ≤ 100,000): ``{"status", "job"}``. 1 credit.

        Takes the options of :meth:`crawl`. Never retried on 502/504 (it starts a job).
        """
        body = _compact(dict(url=url, **options))
        body['async'] = True
        return self._post('/crawl', body)

    def start_batch_scrape(
        self,
        urls: Sequence[str],
        *,
        formats: Optional[Sequence[str]] = None,
        schema: Optional[Mapping[str, Any]] = None,
        only_main_content: Optional[bool] = None,
        render: Optional[str] = None,
        timeout_ms: Optional[int] = None,
        **options: Any,
    ) -> JSON:
        """``POST /v1/batch/scrape`` (1–10,000 URLs): ``{"status", "job"}``. 1 credit."""
        return self._post('/batch/scrape', _compact(dict(urls=list(urls), formats=formats, schema=schema, only_main_content=only_main_content, render=render, timeout_ms=timeout_ms, **options)))

    def batch_scrape(
        self,
        urls: Sequence[str],
        *,
        on_progress: Optional[ProgressCallback] = None,
        poll_interval: float = 1.0,
        wait_timeout: Optional[float] = None,
        **options: Any,
    ) -> JSON:
        """Start a batch scrape, wait for it and read every page: ``{"job": <ended job>, "pages": [...]}``.

        ``options`` are those of :meth:`start_batch_scrape`; ``on_progress``, ``poll_interval``
        and ``wait_timeout`` those of :meth:`wait_for_job`. Pages come in completion order.
        """
        started = self.start_batch_scrape(urls, **options)
        job = self.wait_for_job(started, on_progress=on_progress, poll_interval=poll_interval, timeout=wait_timeout)
        return {'job': job, 'pages': list(self.iter_pages(job, follow=False))}

    def get_job(self, job_id: JobRef, *, cursor: Optional[str] = None, limit: Optional[int] = None) -> JSON:
        """``GET /v1/jobs/{id}``: ``{"job", "pages", "next_cursor"}``, pages after ``cursor`` (limit ≤ 100)."""
        return self.request('GET', f'/jobs/{_seg(_job_id(job_id))}', query={'cursor': cursor, 'limit': limit})

    def iter_pages(self, job_id: JobRef, *, page_size: int = 100, follow: bool = True, poll_interval: float = 1.0) -> Iterator[JSON]:
        """Every page of a job, in completion order, following ``next_cursor``.

        With ``follow`` (default) a running job is polled every ``poll_interval`` seconds until
        it ends and its last page is read; without, iteration stops at the pages written so far.
        """
        jid = _job_id(job_id)
        cursor: Optional[str] = None
        while True:
            answer = self.get_job(jid, cursor=cursor, limit=page_size)
            pages: List[JSON] = answer.get('pages') or []
            for page in pages:
                yield page
            cursor = answer.get('next_cursor')
            if cursor is None:
                return  # the job ended and its last page was read
            if len(pages) < page_size:
                # Caught up with a running job: more pages come as it works.
                if not follow:
                    return
                time.sleep(poll_interval)

    def wait_for_job(
        self,
        job_id: JobRef,
        *,
        on_progress: Optional[ProgressCallback] = None,
        poll_interval: float = 1.0,
        timeout: Optional[float] = None,
    ) -> JSON:
        """Poll a job until it is ``completed``, ``failed`` or ``cancelled``; return the ended job.

        ``on_progress(job)`` is called with the job object (``state``, ``progress``
        ``{"done", "failed", "queued"}``) at the first poll and whenever its state or progress
        changed. After ``timeout`` seconds :class:`JobTimeoutError` is raised (the job goes on).
        A failed or cancelled job is returned, not raised: check ``job["state"]``.
        """
        jid = _job_id(job_id)
        deadline = None if timeout is None else time.monotonic() + timeout
        seen: Optional[str] = None
        while True:
            job: JSON = self.get_job(jid, limit=1)['job']
            mark = json.dumps([job.get('state'), job.get('progress')], sort_keys=True)
            if on_progress is not None and mark != seen:
                on_progress(job)
            seen = mark
            if job.get('state') in JOB_ENDED_STATES:
                return job
            if deadline is not None and time.monotonic() + poll_interval > deadline:
                raise JobTimeoutError(f'job {jid} is still {job.get("state")} after {timeout:g} s', error='job_timeout', body=job)
            time.sleep(poll_interval)

    def cancel_job(self, job_id: JobRef) -> JSON:
        """``DELETE /v1/jobs/{id}``: no new page starts; pages done are kept. ``{"status", "job"}``."""
        return self.request('DELETE', f'/jobs/{_seg(_job_id(job_id))}')

    def list_jobs(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> JSON:
        """``GET /v1/jobs``: ``{"jobs", "next_cursor"}``, newest first (limit ≤ 100)."""
        return self.request('GET', '/jobs', query={'limit': limit, 'cursor': cursor})

    def iter_jobs(self, *, page_size: int = 100) -> Iterator[JSON]:
        """Every job of the account, newest first, across cursors."""
        return self._iter_list('/jobs', 'jobs', page_size)

    # -- monitors -------------------------------------------------------------------------------

    def create_monitor(
        self,
        url: str,
        interval: str,
        watch: Sequence[str],
        webhook: str,
        *,
        marketplace: Optional[str] = None,
        schema: Optional[Mapping[str, Any]] = None,
        events: Optional[Sequence[str]] = None,
        conditions: Optional[Sequence[Mapping[str, Any]]] = None,
        **options: Any,
    ) -> JSON:
        """``POST /v1/monitors``: ``{"status", "monitor"}`` (201). Creating costs no credit; each run does."""
        return self._post('/monitors', _compact(dict(url=url, interval=interval, watch=list(watch), webhook=webhook, marketplace=marketplace, schema=schema, events=list(events) if events is not None else None, conditions=conditions, **options)))

    def list_monitors(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> JSON:
        """``GET /v1/monitors``: ``{"monitors", "next_cursor"}``, newest first (limit ≤ 100)."""
        return self.request('GET', '/monitors', query={'limit': limit, 'cursor': cursor})

    def iter_monitors(self, *, page_size: int = 100) -> Iterator[JSON]:
        """Every monitor of the account, newest first, across cursors."""
        return self._iter_list('/monitors', 'monitors', page_size)

    def get_monitor(self, monitor_id: str) -> JSON:
        """``GET /v1/monitors/{id}``: the monitor with ``last_values`` and ``last_runs``."""
        return self.request('GET', f'/monitors/{_seg(monitor_id)}')

    def update_monitor(self, monitor_id: str, **fields: Any) -> JSON:
        """``PATCH /v1/monitors/{id}`` with the fields given, ``None`` included (``conditions=None`` clears).

        Fields: ``interval``, ``watch``, ``webhook``, ``state`` (``active``/``paused``),
        ``conditions``, ``events``, ``webhook_state``.
        """
        return self.request('PATCH', f'/monitors/{_seg(monitor_id)}', dict(fields))

    def delete_monitor(self, monitor_id: str) -> JSON:
        """``DELETE /v1/monitors/{id}``: ``{"status", "monitor_id", "deleted": true}``."""
        return self.request('DELETE', f'/monitors/{_seg(monitor_id)}')

    def run_monitor(self, monitor_id: str) -> JSON:
        """``POST /v1/monitors/{id}/run``: runs now (also when paused), answers ``{"status", "run"}``. The run costs 1 credit."""
        return self._post(f'/monitors/{_seg(monitor_id)}/run', {})

    def list_monitor_runs(self, monitor_id: str, *, limit: Optional[int] = None) -> JSON:
        """``GET /v1/monitors/{id}/runs``: ``{"runs", "unchanged_runs_collapsed"}``, newest first (limit ≤ 500)."""
        return self.request('GET', f'/monitors/{_seg(monitor_id)}/runs', query={'limit': limit})

    def get_monitor_history(self, monitor_id: str, field: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> JSON:
        """``GET /v1/monitors/{id}/history``: ``{"field", "points": [{"at", "value"}], "next_cursor"}`` (older pages by cursor)."""
        return self.request('GET', f'/monitors/{_seg(monitor_id)}/history', query={'field': field, 'limit': limit, 'cursor': cursor})

    def list_deliveries(self, monitor_id: str, *, limit: Optional[int] = None) -> JSON:
        """``GET /v1/monitors/{id}/deliveries``: ``{"deliveries"}`` with every attempt, newest first (limit ≤ 500)."""
        return self.request('GET', f'/monitors/{_seg(monitor_id)}/deliveries', query={'limit': limit})

    def redeliver(self, monitor_id: str, delivery_id: str) -> JSON:
        """``POST /v1/monitors/{id}/deliveries/{delivery_id}/redeliver``: sends the event again now; ``{"status", "delivery"}``."""
        return self._post(f'/monitors/{_seg(monitor_id)}/deliveries/{_seg(delivery_id)}/redeliver', {})

    # -- webhooks and account -------------------------------------------------------------------

    def replay_webhooks(self, since: Union[str, datetime], *, monitor_id: Optional[str] = None) -> JSON:
        """``POST /v1/webhooks/replay``: failed deliveries since a time become pending; ``{"status", "replayed"}``.

        ``since`` is an ISO-8601 string with its offset or an aware ``datetime``. Safe to repeat.
        """
        return self._post('/webhooks/replay', _compact({'since': _iso(since), 'monitor_id': monitor_id}), idempotent=True)

    def account(self) -> JSON:
        """``GET /v1/account``: ``{"account_id", "email", "credits"}``. Costs nothing."""
        return self.request('GET', '/account')

    # -- helpers --------------------------------------------------------------------------------

    def _iter_list(self, path: str, key: str, page_size: int) -> Iterator[JSON]:
        cursor: Optional[str] = None
        while True:
            answer = self.request('GET', path, query={'limit': page_size, 'cursor': cursor})
            for item in answer.get(key) or []:
                yield item
            cursor = answer.get('next_cursor')
            if not cursor:
                return
