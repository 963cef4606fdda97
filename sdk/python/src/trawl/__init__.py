"""Trawl: a Python client for the Trawl web data extraction API.

    from trawl import Trawl
    client = Trawl(api_key='trawl_…', base_url='http://127.0.0.1:3000')
    page = client.scrape('https://example.com', formats=['markdown'])

See README.md for every method, the errors, the retry policy and webhook verification.
"""
from ._transport import __version__
from .client import JOB_ENDED_STATES, Trawl
from .errors import (
    APIConnectionError,
    AuthenticationError,
    BlockedError,
    FetchFailedError,
    ForbiddenTargetError,
    InsufficientCreditsError,
    InternalServerError,
    InvalidRequestError,
    InvalidSchemaError,
    JobTimeoutError,
    NotFoundError,
    RateLimitError,
    RequestTimeoutError,
    TrawlError,
    UpstreamError,
    WebhookVerificationError,
)
from .webhooks import verify_webhook

__all__ = [
    'Trawl',
    'JOB_ENDED_STATES',
    'verify_webhook',
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
    '__version__',
]
