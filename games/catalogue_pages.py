"""The catalogue's tables in a browser, with no site running: a small HTTP server in a thread of
this process serves the static files (staticfiles finders, cached by the browser) and each table
rendered here (games.catalogue) from memory; any other request (the stream, the poll) is
answered "nothing new" (204). Each state is a real document (its scripts run afresh), cheap
enough to show a hundred of them in a few seconds.

Used by tests/e2e/test_table_catalogue.py and `manage.py table_screenshots`; Playwright is the
caller's (a test dependency, not the site's).
"""

from __future__ import annotations

import mimetypes
import threading
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.contrib.staticfiles import finders
from django.http import HttpRequest
from django.test import RequestFactory

from games import catalogue

SIZES = {
    "1024x768": (1024, 768),
    "768x1024": (768, 1024),
    "1280x800": (1280, 800),
    "1366x768": (1366, 768),
}


def request() -> HttpRequest:
    """A request as a signed-out tablet sends it (the page's header reads the user)."""
    req = RequestFactory().get("/play/1/")
    req.user = AnonymousUser()
    return req


@cache
def _static(path: str) -> tuple[bytes, str] | None:
    found = finders.find(path)
    if not found:
        return None
    return Path(found).read_bytes(), mimetypes.guess_type(found)[0] or "application/octet-stream"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    documents: dict[str, str]
    files: dict[str, Path]
    policy: str | None


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def do_GET(self):
        path = self.path.split("?")[0]
        body, kind, headers = b"", "text/plain", {}
        status = 204
        if path.startswith(settings.STATIC_URL):
            found = _static(path.removeprefix(settings.STATIC_URL))
            status = 200 if found else 404
            if found:
                body, kind = found
                headers["Cache-Control"] = "max-age=3600"
        elif path in self.server.files:
            status, kind = 200, "text/javascript"
            body = self.server.files[path].read_bytes()
            headers["Cache-Control"] = "max-age=3600"
        elif path in self.server.documents:
            status, kind = 200, "text/html; charset=utf-8"
            body = self.server.documents.pop(path).encode()
            if self.server.policy:
                headers["Content-Security-Policy"] = self.server.policy
        self.send_response(status)
        if status != 204:
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if status != 204:
            self.wfile.write(body)

    do_POST = do_GET


class Pages:
    """A server for the catalogue's pages (a context manager); `show(page, name, position)`
    opens a state in a Playwright page. `policy`: the Content-Security-Policy header the tables
    are served with (the site's, for a CSP check); `files`: more scripts to serve by path (a
    test's axe-core), cached by the browser like the static files."""

    def __init__(self, *, policy: str | None = None, files: dict[str, Path] | None = None):
        self.server = _Server(("127.0.0.1", 0), _Handler)
        self.server.documents = {}
        self.server.files = dict(files or {})
        self.server.policy = policy
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Pages:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def show(self, page, name: str, position: int, *, settled: bool = True) -> None:
        """State `name` as the tablet of seat `position` shows it, scrolled to the top; with
        `settled`, once what it animates on arrival has ended (a test of the animation itself
        says settled=False)."""
        path = f"/catalogue/{name}/{position}/"
        self.server.documents[path] = catalogue.render(name, position, request())
        page.goto(self.origin + path, wait_until="load")
        page.evaluate("window.scrollTo(0, 0)")
        if not settled:
            return
        # What the page animates on arrival (the end's fade with reduced motion, a ruling's
        # flash) is measured once it has settled: a loaded box once checked the end's "The
        # table" mid-fade, its white on green at half opacity.
        # (page.evaluate, not wait_for_function: that one evaluates a string, which the CSP
        # refuses.)
        page.evaluate(
            "Promise.all(document.getAnimations().filter((a) =>"
            " a.effect && a.effect.getComputedTiming().endTime < Infinity)"
            ".map((a) => a.finished.catch(() => null)))"
        )
