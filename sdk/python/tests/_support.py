"""Shared pieces of the SDK's tests: the package on sys.path, the service's env, local servers.

Tests that need the running service read it from the environment (set by
test/sdk/python.test.ts): TRAWL_TEST_URL, TRAWL_TEST_KEY, TRAWL_TEST_FIXTURE_URL and the others
named where they are used. Without them those tests skip, unless TRAWL_TEST_REQUIRE_SERVICE=1
(the Vitest run) makes a missing variable a failure.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import sys
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'src')
if SRC not in sys.path:
    sys.path.insert(0, SRC)


def env(name: str) -> str:
    """A variable the service tests need: skip without it, or fail when the service is required."""
    value = os.environ.get(name)
    if value:
        return value
    if os.environ.get('TRAWL_TEST_REQUIRE_SERVICE') == '1':
        raise AssertionError(f'{name} is not set (test/sdk/python.test.ts sets it)')
    raise unittest.SkipTest(f'{name} is not set: run through `npx vitest run test/sdk/python.test.ts` to test against the service')


def until(check: Callable[[], Any], timeout: float = 20.0, interval: float = 0.1, what: str = 'condition') -> Any:
    """Poll ``check`` until it returns something truthy; fail after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f'timed out after {timeout:g} s waiting for {what}')
        time.sleep(interval)


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """A Standard Webhooks ``v1,`` entry, computed here for the offline tests (cross-checked
    against the official npm library by test_webhooks' npm cases)."""
    key = base64.b64decode(secret[len('whsec_'):])
    mac = hmac.new(key, f'{msg_id}.{timestamp}.'.encode() + body, hashlib.sha256).digest()
    return 'v1,' + base64.b64encode(mac).decode()


Reply = Tuple[int, Dict[str, str], bytes]


class Recorded:
    def __init__(self, method: str, path: str, headers: Dict[str, str], body: bytes) -> None:
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.at = time.monotonic()

    def json(self) -> Any:
        return json.loads(self.body.decode('utf-8'))


class LocalServer:
    """An HTTP server on 127.0.0.1 that records every request and answers through ``respond``.

    ``respond(recorded)`` returns (status, headers, body); by default the next scripted reply,
    then 204. ``delay`` holds each answer that many seconds (timeouts).
    """

    def __init__(self, respond: Optional[Callable[[Recorded], Reply]] = None) -> None:
        self.requests: List[Recorded] = []
        self.script: List[Reply] = []
        self.delay = 0.0
        self._lock = threading.Lock()
        self._respond = respond
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def _handle(self) -> None:
                length = int(self.headers.get('content-length') or 0)
                body = self.rfile.read(length) if length else b''
                rec = Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with outer._lock:
                    outer.requests.append(rec)
                    reply = outer._respond(rec) if outer._respond else (outer.script.pop(0) if outer.script else (204, {}, b''))
                if outer.delay:
                    time.sleep(outer.delay)
                status, headers, payload = reply
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header('Content-Length', str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            do_GET = do_POST = do_DELETE = do_PATCH = _handle

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

        self._server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self._server.daemon_threads = True
        self.url = f'http://127.0.0.1:{self._server.server_address[1]}'
        threading.Thread(target=self._server.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True).start()

    def reply(self, status: int, body: Any = None, headers: Optional[Dict[str, str]] = None) -> None:
        """Queue one answer: a dict/list body is sent as JSON, bytes/str as they are."""
        if isinstance(body, (dict, list)):
            payload = json.dumps(body).encode()
            hdrs = {'Content-Type': 'application/json', **(headers or {})}
        else:
            payload = body.encode() if isinstance(body, str) else (body or b'')
            hdrs = dict(headers or {})
        self.script.append((status, hdrs, payload))

    def wait_for(self, n: int, timeout: float = 20.0) -> List[Recorded]:
        until(lambda: len(self.requests) >= n, timeout, what=f'{n} requests at {self.url} (got {len(self.requests)})')
        return self.requests

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
