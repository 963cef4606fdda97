"""Errors of the Trawl client: one class per family of the API's error codes.

Every failure answered by the service is a ``TrawlError`` carrying the HTTP ``status``, the
contract's ``error`` code (``invalid_request``, ``rate_limited`` ...), its ``detail`` sentence
and, for ``rate_limited``, ``retry_after`` in seconds. Catch the base class, or a subclass
for the cases a program handles differently.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type

__all__ = [
    'TrawlError',
    'InvalidRequestError',
    'InvalidSchemaError',
    'AuthenticationError',
    'InsufficientCreditsError',
    'ForbiddenTargetError',
    'NotFoundError',
    'RateLimitError',
    'UpstreamError',
    'FetchFailedError',
    'BlockedError',
    'RequestTimeoutError',
    'InternalServerError',
    'APIConnectionError',
    'JobTimeoutError',
    'WebhookVerificationError',
    'error_from_response',
]


class TrawlError(Exception):
    """A request the service refused or could not do.

    Attributes:
        status: the HTTP status (``None`` when no answer arrived).
        error: the contract's error code, e.g. ``"invalid_request"``.
        detail: the service's sentence saying what to fix (may be ``None``).
        code: the same code, under the TypeScript SDK's name.
        retry_after: seconds to wait before trying again (rate limits), else ``None``.
        errors: every fault of the body (``[{field, detail}]``) when there were two or more.
        request_id: the answer's ``X-Request-Id``, to quote to the operator.
        body: the whole JSON error body as answered.
    """

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        error: Optional[str] = None,
        detail: Optional[str] = None,
        retry_after: Optional[float] = None,
        request_id: Optional[str] = None,
        body: Optional[Mapping[str, Any]] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.detail = detail
        self.retry_after = retry_after
        self.request_id = request_id
        self.body: Dict[str, Any] = dict(body or {})
        # Every fault of the body when there were two or more (the first is also ``detail``).
        found = self.body.get('errors')
        self.errors: Optional[list] = list(found) if isinstance(found, list) else None

    @property
    def code(self) -> Optional[str]:
        """The error code under the TypeScript SDK's name (same as ``error``)."""
        return self.error

    def __repr__(self) -> str:
        return f'{type(self).__name__}(status={self.status!r}, error={self.error!r}, detail={self.detail!r})'


class InvalidRequestError(TrawlError):
    """400 ``invalid_request`` (also 413 ``payload_too_large``, 415, 422 ``action_failed``)."""


class InvalidSchemaError(InvalidRequestError):
    """422 ``invalid_schema``: the ``schema`` object is missing or not valid; ``detail`` names the path."""


class AuthenticationError(TrawlError):
    """401 ``unauthorized``: the API key is missing, unknown or revoked."""


class InsufficientCreditsError(TrawlError):
    """402 ``insufficient_credits``: the account has no credit left; nothing was done."""


class ForbiddenTargetError(TrawlError):
    """403 ``forbidden_target``: the URL resolves to a private or otherwise refused address."""


class NotFoundError(TrawlError):
    """404 ``not_found``: unknown path, or a job/monitor/delivery of no one or of another account."""


class RateLimitError(TrawlError):
    """429 ``rate_limited``: over the key's rate limit; ``retry_after`` says when to try again."""


class UpstreamError(TrawlError):
    """502: the target (or a search/Meta provider) could not be read."""


class FetchFailedError(UpstreamError):
    """502 ``fetch_failed``: unreachable, HTTP >= 400 from the target, unreadable content."""


class BlockedError(UpstreamError):
    """502 ``blocked``: the target answered with a bot wall or captcha."""


class RequestTimeoutError(TrawlError):
    """504 ``timeout`` (or 408): the work exceeded its time budget."""


class InternalServerError(TrawlError):
    """500 ``internal_error`` or another 5xx without a contract code (e.g. from a proxy)."""


class APIConnectionError(TrawlError):
    """No answer: connection refused or reset, DNS failure, or the socket timed out."""


class JobTimeoutError(TrawlError):
    """``wait_for_job`` gave up before the job ended (the job keeps running on the server)."""


class WebhookVerificationError(TrawlError):
    """A webhook delivery whose signature or timestamp does not verify: reject it (answer 400)."""


_BY_CODE: Dict[str, Type[TrawlError]] = {
    'invalid_request': InvalidRequestError,
    'payload_too_large': InvalidRequestError,
    'unsupported_media_type': InvalidRequestError,
    'action_failed': InvalidRequestError,
    'invalid_schema': InvalidSchemaError,
    'unauthorized': AuthenticationError,
    'insufficient_credits': InsufficientCreditsError,
    'forbidden_target': ForbiddenTargetError,
    'not_found': NotFoundError,
    'rate_limited': RateLimitError,
    'fetch_failed': FetchFailedError,
    'blocked': BlockedError,
    'timeout': RequestTimeoutError,
    'internal_error': InternalServerError,
}

# An answer without a contract code (a proxy's HTML page): classed by its status.
_BY_STATUS: Dict[int, Type[TrawlError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    402: InsufficientCreditsError,
    403: ForbiddenTargetError,
    404: NotFoundError,
    408: RequestTimeoutError,
    413: InvalidRequestError,
    415: InvalidRequestError,
    422: InvalidRequestError,
    429: RateLimitError,
    502: UpstreamError,
    504: RequestTimeoutError,
}


def error_from_response(
    status: int,
    body: Optional[Mapping[str, Any]],
    *,
    retry_after: Optional[float] = None,
    request_id: Optional[str] = None,
    text: str = '',
    challenge: Optional[str] = None,
) -> TrawlError:
    """The error for an answer with a non-2xx ``status`` and its parsed JSON ``body`` (or None);
    ``challenge``: a 401's cause from its WWW-Authenticate header."""
    code = body.get('error') if body and isinstance(body.get('error'), str) else None
    detail = body.get('detail') if body and isinstance(body.get('detail'), str) else challenge
    if detail is None and not body and text:
        # Not the API's JSON (a proxy's page): keep a short excerpt so the caller sees what came back.
        detail = ' '.join(text.split())[:200] or None
    cls = _BY_CODE.get(code or '') or _BY_STATUS.get(status) or (InternalServerError if status >= 500 else TrawlError)
    message = f'{code or "http_error"} ({status})' + (f': {detail}' if detail else '')
    if request_id:
        message += f' [request {request_id}]'
    return cls(message, status=status, error=code, detail=detail, retry_after=retry_after, request_id=request_id, body=body)
