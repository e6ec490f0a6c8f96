"""kavet_site.admission.OneHopASGIHandler behind SharedThreads, as kavet_site/asgi.py runs them:
a request's middleware and view on one thread, one of a few shared ones, and the answers as
Django's own handler gives them (a page, a 404, an error page, a POST's CSRF refusal)."""

from __future__ import annotations

import threading

import pytest
from django.core import signals
from django.http import HttpResponse, StreamingHttpResponse
from django.urls import path

from kavet_site.admission import OneHopASGIHandler, SharedThreads
from tests.loops import run

SEEN: list[tuple[str, str]] = []


def where(request):
    SEEN.append(("view", threading.current_thread().name))
    return HttpResponse(b"here", content_type="text/plain")


def boom(request):
    raise RuntimeError("a bug")


async def an_async_view(request):
    return HttpResponse(b"async", content_type="text/plain")


CLOSED: list[str] = []


def streamed(request):
    async def body():
        try:
            yield b"one,"
            yield b"two"
        finally:
            CLOSED.append("body")

    response = StreamingHttpResponse(body(), content_type="text/plain")
    return response


urlpatterns = [
    path("where", where),
    path("boom", boom),
    path("async", an_async_view),
    path("streamed", streamed),
]


def on_started(sender, **kwargs):
    SEEN.append(("request_started", threading.current_thread().name))


def on_finished(sender, **kwargs):
    SEEN.append(("request_finished", threading.current_thread().name))


class Recorder:
    """A sync middleware, outermost: the thread the chain starts on."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        SEEN.append(("middleware", threading.current_thread().name))
        return self.get_response(request)


async def call(app, method: str, path_: str) -> tuple[int, bytes]:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path_,
        "raw_path": path_.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }
    out = {"status": 0, "body": b"", "order": []}
    sent = False

    async def receive():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        import asyncio

        await asyncio.sleep(30)
        return {"type": "http.disconnect"}

    async def send(message):
        out["order"].append(message["type"])
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    await app(scope, receive, send)
    call.last = out  # type: ignore[attr-defined]
    return out["status"], out["body"]


@pytest.fixture
def app(settings):
    settings.ROOT_URLCONF = __name__
    settings.DEBUG = False
    settings.MIDDLEWARE = ["tests.site.test_one_hop_handler.Recorder", *settings.MIDDLEWARE]
    SEEN.clear()
    return SharedThreads(OneHopASGIHandler(), prefix="/push/", threads=1, others=2)


@pytest.mark.django_db(transaction=True)
def test_middleware_and_view_run_on_one_shared_thread(app):
    async def scenario():
        return [await call(app, "GET", "/where") for _ in range(6)]

    answers = run(scenario())
    assert answers == [(200, b"here")] * 6
    names = [name for _kind, name in SEEN]
    assert len(SEEN) == 12
    assert all(name.startswith("kavet-request-") for name in names)
    for i in range(0, 12, 2):  # each request: its middleware and its view on the same thread
        assert SEEN[i][0] == "middleware" and SEEN[i + 1][0] == "view"
        assert SEEN[i][1] == SEEN[i + 1][1]


@pytest.mark.django_db(transaction=True)
def test_answers_are_djangos(app):
    async def scenario():
        return [
            await call(app, "GET", "/nowhere"),
            await call(app, "GET", "/boom"),
            await call(app, "GET", "/async"),
            await call(app, "POST", "/where"),
        ]

    (missing, _), (error, _), (async_view, body), (post, _) = run(scenario())
    assert missing == 404
    assert error == 500  # an uncaught error is Django's error page, not a dropped connection
    assert (async_view, body) == (200, b"async")
    assert post == 403  # CSRF, as before


@pytest.fixture
def signals_seen():
    signals.request_started.connect(on_started)
    signals.request_finished.connect(on_finished)
    yield
    signals.request_started.disconnect(on_started)
    signals.request_finished.disconnect(on_finished)


@pytest.mark.django_db(transaction=True)
def test_a_page_starts_and_finishes_on_its_own_thread_in_one_hand_off(app, signals_seen):
    # Issue 38: request_started, the middleware, the view and request_finished (the database
    # connection back to its pool) in one call on the request's thread, before the answer
    # goes out, where Django's handler made three hand-offs.
    assert run(call(app, "GET", "/where")) == (200, b"here")
    kinds = [kind for kind, _name in SEEN]
    assert kinds == ["request_started", "middleware", "view", "request_finished"]
    assert len({name for _kind, name in SEEN}) == 1
    assert SEEN[0][1].startswith("kavet-request-")
    assert call.last["order"] == ["http.response.start", "http.response.body"]


@pytest.mark.django_db(transaction=True)
def test_a_streamed_answer_is_sent_whole_then_closed(app, signals_seen):
    CLOSED.clear()
    status, body = run(call(app, "GET", "/streamed"))
    assert (status, body) == (200, b"one,two")
    assert CLOSED == ["body"]
    kinds = [kind for kind, _name in SEEN]
    # Closed (request_finished) only after its last byte, not before it was sent.
    assert kinds == ["request_started", "middleware", "request_finished"]
    assert call.last["order"][-1] == "http.response.body"
