"""A seat's push stream the server keeps watch over (issue 38): the tablet sends no safety-net
poll while the stream is alive, and gives a stream that falls silent up.

Under ASGI each web process's keeper (games/stream.py) checks the tables of its seats' streams
and stamps their tablets' presence, and says so in the stream's `hello` (`watched`); the tablet
(static/js/table.js) then asks for nothing until the stream tells of a change. The server sends
a heartbeat event while it has nothing else to say; a stream silent for longer than live.js's
SILENT_AFTER (60 s) has stalled without an error, and the tablet goes back to polling every 2 s.

The browser tests' live server is WSGI, whose streams are not kept: here its hello says
`watched` as an ASGI process's does, and the page's clock is run forward (Playwright's clock)
while real heartbeats keep coming every 0.3 s.
"""

from __future__ import annotations

import pytest

from games import stream
from tests.e2e.helpers import STREAM_UP, open_table, sign_in_context, wait_stream_up
from tests.e2e.test_push_tablets import anna_and_bo_at_a_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _quick_heartbeats(monkeypatch):
    monkeypatch.setattr(stream, "HEARTBEAT", 0.3)


def tablet(new_context, live_server, student, game):
    """Anna's tablet at the table, its stream up; the table polls it sends, counted."""
    context = new_context(viewport={"width": 1024, "height": 768})
    context.add_init_script(STREAM_UP)
    context.clock.install()  # time flows as usual; run_for() moves it on at once
    sign_in_context(context, live_server, student.user)
    page = context.new_page()
    polls: list[str] = []
    page.on("request", lambda r: r.headers.get("x-kavet-poll") and polls.append(r.url))
    open_table(page, live_server, game)
    wait_stream_up(page)
    return page, polls


def let_time_pass(page, seconds: int) -> None:
    """`seconds` of the page's clock in steps of 10, the stream's real heartbeats between."""
    for _ in range(seconds // 10):
        page.clock.run_for(10_000)
        page.wait_for_timeout(400)


def test_a_kept_stream_asks_nothing_while_nothing_changes(new_context, live_server, monkeypatch):
    monkeypatch.setattr(stream, "HELLO", stream.HELLO_WATCHED)  # as a kept (ASGI) stream's
    anna, _bo, game = anna_and_bo_at_a_table()
    page, polls = tablet(new_context, live_server, anna, game)
    polls.clear()
    let_time_pass(page, 100)  # past the safety-net poll of an unkept stream (48-72 s)
    assert polls == []
    assert page.evaluate("window.__kvUp === true")  # the heartbeats kept it alive


def test_an_unkept_stream_still_polls_about_once_a_minute(new_context, live_server):
    # The same page on a stream its server does not keep (the embedded default, WSGI).
    anna, _bo, game = anna_and_bo_at_a_table()
    page, polls = tablet(new_context, live_server, anna, game)
    polls.clear()
    let_time_pass(page, 100)
    assert 1 <= len(polls) <= 2, polls


def test_a_stream_that_falls_silent_is_given_up_and_the_tablet_polls(
    new_context, live_server, monkeypatch
):
    monkeypatch.setattr(stream, "HELLO", stream.HELLO_WATCHED)
    anna, _bo, game = anna_and_bo_at_a_table()
    page, polls = tablet(new_context, live_server, anna, game)
    # The connection stays open but nothing comes any more (dropped on the way, no error).
    monkeypatch.setattr(stream, "HEARTBEAT", 3600.0)
    page.wait_for_timeout(700)  # the heartbeat's wait in progress ends, the next is an hour
    polls.clear()
    page.clock.run_for(55_000)
    assert page.evaluate("window.__kvUp === true")  # not yet: heartbeats may come late
    page.clock.run_for(6_000)  # 61 s without any event: stalled
    assert page.evaluate("window.__kvUp === false")
    page.clock.run_for(2_500)
    page.wait_for_timeout(500)
    assert polls, "back to the 2-s poll"
