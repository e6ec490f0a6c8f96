"""A database outage answers 503 "try again" in the user's language, never a bare 500.

Django turns an exception raised anywhere in the middleware stack or the view into a 500
response at the layer where it happened, so an outer middleware never sees the exception
itself. The `got_request_exception` signal (sent for every such exception, with the request)
marks the request when the exception is a database OperationalError or InterfaceError; this
middleware, outermost but one, then replaces that 500 with templates/503.html, rendered
without a request context: no session, no user, no database query.

htmx requests (tablet polls, moves) get a short fragment, the same 503 and Retry-After, and
the event `kavet:unavailable` in HX-Trigger, so the page's script can show that it is retrying.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError, connections
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.cache import add_never_cache_headers

log = logging.getLogger("kavet_site.middleware")

DATABASE_ERRORS = (OperationalError, InterfaceError)
RETRY_AFTER = 5  # seconds: a PostgreSQL restart or a fail-over usually takes this long
MARK = "_kavet_database_down"


@receiver(got_request_exception, dispatch_uid="kavet_site.middleware.database_down")
def _mark_database_errors(sender, request=None, **kwargs) -> None:
    import sys

    exc = sys.exc_info()[1]
    if request is not None and isinstance(exc, DATABASE_ERRORS):
        setattr(request, MARK, exc)


def unavailable_response(request: HttpRequest, retry_after: int = RETRY_AFTER) -> HttpResponse:
    """The 503 page (or fragment, for htmx) in the request's language, touching no database."""
    htmx = "HTTP_HX_REQUEST" in request.META
    try:
        language = translation.get_language_from_request(request)
    except Exception:  # noqa: BLE001 - a broken header must not stop the 503
        language = None
    with translation.override(language or translation.get_language()):
        body = render_to_string("503.html", {"fragment": htmx, "retry_after": retry_after})
        response = HttpResponse(body, status=503, content_type="text/html; charset=utf-8")
        response["Content-Language"] = translation.get_language()
    response["Retry-After"] = str(retry_after)
    if htmx:
        response["HX-Trigger"] = json.dumps({"kavet:unavailable": {"retryAfter": retry_after}})
    add_never_cache_headers(response)
    return response


def _drop_broken_connections() -> None:
    """Close a connection the outage broke, so the next request opens a fresh one at once
    (request_finished does the same in production; this also covers the test client)."""
    for conn in connections.all(initialized_only=True):
        try:
            if conn.connection is not None and not conn.is_usable():
                conn.close()
        except DATABASE_ERRORS:
            pass


class DatabaseUnavailableMiddleware:
    """Outermost but SecurityMiddleware: a 500 caused by the database becomes a 503 page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            response = self.get_response(request)
        except (
            DATABASE_ERRORS
        ) as exc:  # raised past Django's own conversion (tests, DEBUG_PROPAGATE)
            setattr(request, MARK, exc)
            response = None
        exc = getattr(request, MARK, None)
        if exc is not None and (response is None or response.status_code >= 500):
            log.warning(
                "database unavailable for %s %s: %s",
                request.method,
                request.path,
                type(exc).__name__,
            )
            _drop_broken_connections()
            return unavailable_response(request)
        return response
