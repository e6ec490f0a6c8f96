"""The catalogue's tables in a browser, with no server: Playwright pages whose static files are
read from the project (staticfiles finders), whose table is rendered in this process and
served from memory, and whose other requests (the stream, the poll) are answered "nothing
new" (204). Each state is a real document (a navigation served from memory, its scripts run
afresh), cheap enough to show a hundred of them in a few seconds.

Used by tests/e2e/test_table_catalogue.py and `manage.py table_screenshots`; Playwright is
imported by the caller (a test dependency, not the site's).
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest
from django.test import RequestFactory

from games import catalogue

ORIGIN = "http://kavet-catalogue.test"
SIZES = {
    "1024x768": (1024, 768),
    "768x1024": (768, 1024),
    "1280x800": (1280, 800),
    "1366x768": (1366, 768),
}
_documents: dict[str, str] = {}  # the next pages to serve, by path


def request() -> HttpRequest:
    """A request as a signed-out tablet sends it (the page's header reads the user)."""
    from django.contrib.auth.models import AnonymousUser

    req = RequestFactory().get("/play/1/", HTTP_HOST="kavet-catalogue.test")
    req.user = AnonymousUser()
    return req


def _serve(route, policy: str | None = None) -> None:
    url = route.request.url
    path = url.removeprefix(ORIGIN).split("?")[0]
    if path.startswith(settings.STATIC_URL):
        found = finders.find(path.removeprefix(settings.STATIC_URL))
        if found:
            kind = mimetypes.guess_type(found)[0] or "application/octet-stream"
            route.fulfill(status=200, body=Path(found).read_bytes(), content_type=kind)
            return
        route.fulfill(status=404, body="")
        return
    if path in _documents:
        route.fulfill(
            status=200, body=_documents.pop(path), content_type="text/html; charset=utf-8"
        )
        return
    route.fulfill(status=204, body="")


def open_page(context, *, policy: str | None = None):
    """A page of `context` ready to show catalogue states (its routes set); `policy`: the
    Content-Security-Policy header its tables are served with (the site's, for a CSP check)."""
    context.route(f"{ORIGIN}/**", lambda route: _serve(route, policy))
    return context.new_page()


def show(page, name: str, position: int) -> None:
    """Show state `name` as the tablet of seat `position` sees it, scrolled to the top."""
    path = f"/catalogue/{name}/{position}/"
    _documents[path] = catalogue.render(name, position, request())
    page.goto(ORIGIN + path, wait_until="load")
    page.evaluate("window.scrollTo(0, 0)")
