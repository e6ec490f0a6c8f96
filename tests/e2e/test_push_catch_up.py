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

from games import push
from tests.e2e.helpers import fresh, move
from tests.e2e.test_push_tablets import anna_and_bo_at_a_table, tablet

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_poll_answered_nothing_new_while_a_plain_event_came_is_asked_again(
    new_context, live_server, monkeypatch
):  # R5.1
    anna, bo, game = anna_and_bo_at_a_table()
    page = tablet(new_context, live_server, bo, game)  # its stream up
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
    move(game, 0, type="nothing")  # Anna's turn: "nothing to do" (R4.3)
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
