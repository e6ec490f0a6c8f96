"""A tablet whose push stream is up never stays behind a table it heard of (R5.1: every tablet sees
a move at the same moment).

A computer's move (or a pause) comes on the stream without a board: the tablet fetches it with its
poll. When a poll is already on its way and comes back "nothing new" (204: it was asked before the
move), the poll the event asked for must still go out after it (htmx queues a request made while
one of the same element is in flight; an `hx-sync` that drops it would leave the tablet on the old
board until its slow safety poll, about a minute later).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games import push, services
from tests import factories
from tests.e2e.helpers import STREAM_UP, fresh, move, open_table, sign_in_context, wait_stream_up

pytestmark = pytest.mark.django_db(transaction=True)


def card(value: int, copy: int = 0) -> int:
    return 2 * value + copy  # the deck up to 10 (tests/games/conftest.py)


def test_a_poll_answered_nothing_new_while_a_plain_event_came_is_asked_again(
    new_context, live_server, monkeypatch
):  # R5.1
    classroom = factories.classroom(school=factories.school())
    anna = factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    bo = factories.student(classroom=classroom, name="Bo", picture_code="3-4-5")
    game = services.game_create(
        school=classroom.school,
        classroom=classroom,
        label="T1",
        draw_order=[card(2), card(3), card(5), card(1), card(6), card(7), card(4)],
        players=[{"student": anna}, {"student": bo}],
        settings={"challenge_window": 120, "turn_time": 0, "challenge_time": 120},
    )
    services.game_start(game=game)
    context = new_context(viewport={"width": 1024, "height": 768})
    context.add_init_script(STREAM_UP)
    sign_in_context(context, live_server, bo.user)
    page = context.new_page()
    open_table(page, live_server, game)
    wait_stream_up(page)
    before = fresh(game).version

    # Bo's tablet asks for its table; the answer is held back for now.
    held, polls = [], []

    def hold_first_poll(route):
        polls.append(route.request.url)
        if not held:
            held.append(route)
        else:
            route.continue_()

    page.route(re.compile(rf"/play/{game.pk}/\?v="), hold_first_poll)
    page.evaluate("() => htmx.trigger(document.querySelector('#board .poller'), 'kavet:poll')")
    while not held:
        page.wait_for_timeout(20)

    # The table moves on meanwhile, and the stream tells of it without a board (as it tells of
    # a computer's move): the poll this asks for waits for the one on its way.
    monkeypatch.setattr(push, "send_on_commit", lambda change: None)
    move(game, 0, type="announce", text="2 + 3 = 5")
    after = fresh(game).version
    assert after == before + 1
    page.evaluate(
        "v => document.dispatchEvent(new CustomEvent('kavet:changed', {detail: {version: v}}))",
        after,
    )
    # The held poll comes back "nothing new": it was asked before the move.
    held[0].fulfill(status=204)

    # Well before the slow poll (48-72 s while the stream is up): the tablet asked again.
    expect(page.locator("#board")).to_have_attribute("data-version", str(after), timeout=5_000)
    assert len(polls) >= 2
    # And it stops asking once it shows what it heard of.
    page.wait_for_timeout(1_000)
    settled = len(polls)
    page.wait_for_timeout(1_000)
    assert len(polls) == settled
