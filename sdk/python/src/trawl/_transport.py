"""HTTP for the client: one JSON request, its error, and the retry policy.

Retries (bounded by ``max_retries``):
- 429 ``rate_limited`` on any call: the server did no work, so waiting ``retry_after`` (body)
  or ``Retry-After`` (header) and sending again is always safe.
- 502, 503, 504 and lost connections only on idempotent calls (GET, DELETE, PATCH and the
  POSTs marked safe): a job-starting or charging POST may have done its work before the
  gateway gave up, so sending it again could charge twice.
- A refused connection on any call: nothing reached the server.
"""
from __future__ import annotations

import email.utils
import http.client
import json
import re
import math
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from .errors import APIConnectionError, TrawlError, error_from_response

__version__ = '0.1.0'

JSON = Dict[str, Any]

# Statuses a gateway answers when the service is briefly away or slow.
_GATEWAY = {502, 503, 504}


def retry_after_header(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds of a ``Retry-After`` header: whole seconds, or an HTTP date; None if neither."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():  # not '²': a latin-1 header may carry it, float() refuses it
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class _KeyStaysHome(urllib.request.HTTPRedirectHandler):
    """Follows redirects as urllib does, but a hop to another origin (scheme, host or port) goes
    without the key: urllib would copy every header to wherever a redirect points, handing the
    key to any host a proxy or a compromised service names. Browsers' fetch does the same."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and _origin(newurl) != _origin(req.full_url):
            new.remove_header('Authorization')
        return new


_opener = urllib.request.build_opener(_KeyStaysHome)


class Transport:
    """Sends requests to ``{base_url}/v1`` with the key, and applies the retry policy."""

    def __init__(
        self,
        api_key: str,
        base_url: str,
        timeout: float,
        max_retries: int,
        backoff_base: float,
        max_backoff: float,
        max_retry_wait: float,
        user_agent: str,
    ) -> None:
        self._api_key = api_key
        root = base_url.rstrip('/')
        self.base = root if root.endswith('/v1') else root + '/v1'
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.max_backoff = max_backoff
        self.max_retry_wait = max_retry_wait
        self.user_agent = user_agent
        # Replaceable in tests; every wait of the client goes through it.
        self.sleep: Callable[[float], None] = time.sleep

    def backoff(self, attempt: int) -> float:
        """Exponential backoff with jitter: base * 2^attempt, capped, then 50–100 % of it."""
        ceiling = min(self.max_backoff, self.backoff_base * (2 ** attempt))
        return ceiling * (0.5 + random.random() / 2)

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        idempotent: bool,
        timeout: Optional[float] = None,
    ) -> JSON:
        url = self.base + path
        params = {k: v for k, v in (query or {}).items() if v is not None}
        if params:
            url += '?' + urllib.parse.urlencode(params)
        data = None if body is None else json.dumps(body, separators=(',', ':')).encode('utf-8')
        attempt = 0
        while True:
            try:
                status, headers, raw = self._send(method, url, data, timeout or self.timeout)
            except APIConnectionError as e:
                refused = isinstance(e.__cause__, ConnectionRefusedError)
                if attempt < self.max_retries and (idempotent or refused):
                    self.sleep(self.backoff(attempt))
                    attempt += 1
                    continue
                raise
            if 200 <= status < 300:
                return _parse_ok(raw, status, headers)
            error = _parse_error(status, headers, raw)
            wait = self._retry_wait(error, idempotent, attempt) if attempt < self.max_retries else None
            if wait is None:
                raise error
            self.sleep(wait)
            attempt += 1

    def _retry_wait(self, error: TrawlError, idempotent: bool, attempt: int) -> Optional[float]:
        """How long to wait before sending again, or None when this error is final."""
        if error.status == 429:
            if error.retry_after is None:
                return self.backoff(attempt)
            if error.retry_after > self.max_retry_wait:
                return None  # longer than the caller is willing to block: let them decide
            # Never earlier than asked; a little later so many clients do not return at once.
            return error.retry_after * (1 + random.random() * 0.1)
        if error.status in _GATEWAY and idempotent:
            if error.retry_after is not None and error.retry_after <= self.max_retry_wait:
                return max(error.retry_after, self.backoff(attempt))
            return self.backoff(attempt)
        return None

    def _send(self, method: str, url: str, data: Optional[bytes], timeout: float) -> Tuple[int, http.client.HTTPMessage, bytes]:
        headers = {
            'Authorization': f'Bearer {self._api_key}',
            'Accept': 'application/json',
            'User-Agent': self.user_agent,
        }
        if data is not None:
            headers['Content-Type'] = 'application/json'
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with _opener.open(req, timeout=timeout) as res:
                return res.status, res.headers, res.read()
        except urllib.error.HTTPError as e:
            # A non-2xx answer: its body is the API's error.
            try:
                raw = e.read()
            except (OSError, http.client.HTTPException):
                raw = b''
            finally:
                e.close()
            return e.code, e.headers, raw
        except urllib.error.URLError as e:
            reason = e.reason if isinstance(e.reason, BaseException) else None
            raise APIConnectionError(f'could not reach {_origin(url)}: {e.reason}', error='connection_error') from reason
        except (socket.timeout, TimeoutError) as e:
            raise APIConnectionError(f'{_origin(url)} sent no answer within {timeout:g} s', error='connection_error') from e
        except (OSError, http.client.HTTPException) as e:
            raise APIConnectionError(f'the connection to {_origin(url)} failed: {e!r}', error='connection_error') from e


def _origin(url: str) -> str:
    u = urllib.parse.urlsplit(url)
    return f'{u.scheme}://{u.netloc}'.lower()


def _parse_ok(raw: bytes, status: int, headers: http.client.HTTPMessage) -> JSON:
    try:
        value = json.loads(raw.decode('utf-8')) if raw else {}
    except (UnicodeDecodeError, ValueError) as e:
        raise TrawlError(f'the service answered {status} with a body that is not JSON', status=status, request_id=headers.get('x-request-id')) from e
    if not isinstance(value, dict):
        raise TrawlError(f'the service answered {status} with JSON that is not an object', status=status, request_id=headers.get('x-request-id'))
    return value


def _parse_error(status: int, headers: http.client.HTTPMessage, raw: bytes) -> TrawlError:
    text = raw.decode('utf-8', errors='replace')
    try:
        parsed = json.loads(text) if text else None
    except ValueError:
        parsed = None
    body = parsed if isinstance(parsed, dict) else None
    retry_after: Optional[float] = None
    given = body.get('retry_after') if body is not None else None
    # A number of seconds to wait: not a bool, and not NaN or negative (Python's json reads NaN),
    # which time.sleep() would refuse with a ValueError instead of the API's error.
    if isinstance(given, (int, float)) and not isinstance(given, bool) and math.isfinite(given) and given >= 0:
        retry_after = float(given)
    if retry_after is None:
        retry_after = retry_after_header(headers.get('retry-after'))
    # A 401's cause comes in its WWW-Authenticate header (RFC 6750's error_description).
    challenge = re.search(r'error_description="([^"]*)"', headers.get('www-authenticate') or '')
    return error_from_response(status, body, retry_after=retry_after, request_id=headers.get('x-request-id'), text='' if body is not None else text, challenge=challenge.group(1) if challenge else None)
