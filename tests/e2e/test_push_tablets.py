"""Two tablets at one table on the push channel (issue 11; R5.1: the first call wins, so every
tablet must see a move at the same moment).

The other tablet shows the move well before its slow safety poll (about a minute while the
stream is up); the mover's own tablet does not fetch the board for its own move's event (the
move's answer is that board), and still hears the next move of the others. A move's event
carries each other tablet's new board (games/stream.py): no tablet fetches a board for a move
made from a tablet.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Game
from tests import factories
from tests.e2e.helpers import STREAM_UP, open_table, sign_in_context, wait_stream_up

pytestmark = pytest.mark.django_db(transaction=True)


def tablet(new_context, live_server, student, game):
    context = new_context(viewport={"width": 1024, "height": 768})
    context.add_init_script(STREAM_UP)
    sign_in_context(context, live_server, student.user)
    page = context.new_page()
    open_table(page, live_server, game)
    wait_stream_up(page)
    return page


def anna_and_bo_at_a_table():
    """Anna's turn first, no turn time limit, a long challenge window."""
    classroom = factories.classroom(school=factories.school())
    anna = factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    bo = factories.student(classroom=classroom, name="Bo", picture_code="3-4-5")
    game = services.game_create(
        school=classroom.school,
        classroom=classroom,
        label="Table 1",
        players=[{"student": anna}, {"student": bo}],
        settings={"challenge_window": 30, "turn_time": 0},
    )
    services.game_start(game=game)
    return anna, bo, game


def test_a_move_reaches_the_other_tablet_by_push_and_the_mover_fetches_nothing_more(
    new_context, live_server
):  # R4.3, R5.1
    anna, bo, game = anna_and_bo_at_a_table()
    a = tablet(new_context, live_server, anna, game)
    b = tablet(new_context, live_server, bo, game)
    boards = []  # the boards Anna's tablet fetched (200s of the table's poll URL)
    a.on(
        "response",
        lambda r: (
            boards.append(r.url) if f"/play/{game.pk}/?v=" in r.url and r.status == 200 else None
        ),
    )
    fetched_by_bo = []  # ... and Bo's: none, the move's event carries his new board
    b.on(
        "response",
        lambda r: fetched_by_bo.append(r.url) if f"/play/{game.pk}/?v=" in r.url else None,
    )
    expect(a.locator(".whose-turn")).to_contain_text("Your turn!")
    start = time.monotonic()
    a.click("button.act-nothing")
    # Bo's tablet: the window to challenge Anna's "nothing to do" is open, pushed (not polled).
    expect(b.locator("#board")).to_have_attribute("data-version", "1", timeout=5_000)
    seen_after = time.monotonic() - start
    expect(b.locator("button.act-challenge")).to_be_visible()
    assert seen_after < 5, seen_after  # the safety poll would take about a minute
    expect(a.locator("#board")).to_have_attribute("data-version", "1")
    a.wait_for_timeout(1_500)  # time for a needless fetch to happen, if one were made
    assert boards == [], boards
    assert fetched_by_bo == [], fetched_by_bo
    # The pushed board is a live board: its buttons work (Bo's OK below is one of them).
    expect(b.locator("#board .poller")).to_have_count(1)
    # ... and Anna's tablet still hears the others: Bo's OK reaches it by push at once.
    start = time.monotonic()
    b.click("button.act-ok")
    expect(a.locator("#board")).to_have_attribute("data-version", "2", timeout=5_000)
    assert time.monotonic() - start < 5
    expect(a.locator(".whose-turn")).to_contain_text("Bo")
    a.wait_for_timeout(500)
    assert boards == [], boards  # the board Bo's move changed came in its event
    assert a.evaluate("window.__kvUp") is True and b.evaluate("window.__kvUp") is True


def test_a_pause_while_the_tablets_own_move_is_on_its_way_shows_at_once(new_context, live_server):
    # R4.9: a paused game waits for the teacher, and every tablet says so. The pause's event
    # (same version: a pause changes the status, not the version) comes while the tablet waits
    # for its own move's answer, which still shows the game running: it must fetch the board
    # then, not at its next safety poll, about a minute later.
    anna, bo, game = anna_and_bo_at_a_table()
    a = tablet(new_context, live_server, anna, game)
    held = []
    a.route(f"**/play/{game.pk}/move/", lambda route: held.append(route))
    expect(a.locator(".whose-turn")).to_contain_text("Your turn!")
    a.click("button.act-nothing")
    deadline = time.monotonic() + 5
    while not held:
        assert time.monotonic() < deadline, "the move was never sent"
        a.wait_for_timeout(50)
    answer = held[0].fetch()  # the server applies the move now; its answer is kept back
    services.game_pause(game=Game.objects.get(pk=game.pk))
    a.wait_for_timeout(1_000)  # both events (the move's, the pause's) reach the tablet first
    held[0].fulfill(response=answer)
    expect(a.locator("#board")).to_have_attribute("data-version", "1")
    start = time.monotonic()
    expect(a.locator("#board.is-paused")).to_be_visible(timeout=5_000)
    assert time.monotonic() - start < 4


def test_a_tab_past_the_tablets_cap_polls_and_never_takes_turns_with_the_new_one(
    new_context, live_server, settings
):
    """A tablet may hold a few streams (games.streamcap); past that, the oldest tab gets `bye`:
    it polls from then on and does not reconnect, or two tabs would close each other forever.
    It still shows the game as it goes (R4.9: the pause shows on every tablet)."""
    settings.KAVET_STREAMS_PER_SESSION = 1
    anna, _bo, game = anna_and_bo_at_a_table()
    old_tab = tablet(new_context, live_server, anna, game)
    new_tab = old_tab.context.new_page()  # the same tablet (session), another tab
    new_tab.add_init_script(STREAM_UP)
    open_table(new_tab, live_server, game)
    deadline = time.monotonic() + 10
    while old_tab.evaluate("window.__kvUp") or not new_tab.evaluate("window.__kvUp"):
        assert time.monotonic() < deadline, "the old tab's stream was not replaced"
        old_tab.wait_for_timeout(100)
    # Several reconnect delays (retry: 2 s) later, neither tab has taken the stream back.
    for _ in range(12):
        old_tab.wait_for_timeout(500)
        assert old_tab.evaluate("window.__kvUp") is False
        assert new_tab.evaluate("window.__kvUp") is True
    services.game_pause(game=Game.objects.get(pk=game.pk))
    expect(new_tab.locator("#board.is-paused")).to_be_visible(timeout=5_000)
    expect(old_tab.locator("#board.is-paused")).to_be_visible(timeout=5_000)  # its 2 s poll


# The moment a board with Bo's "Nothing to do" is in the page (his OK's answer), Bo taps it.
TAP_AT_ONCE = """() => {
  new MutationObserver(function (changes, observer) {
    var button = document.querySelector("#board button.act-nothing");
    if (button) { observer.disconnect(); button.click(); }
  }).observe(document.body, { childList: true, subtree: true });
}"""


def test_a_tap_the_moment_a_new_board_is_in_goes_through_htmx(new_context, live_server):
    # A child taps again as soon as the board changes. htmx readies the forms of a swapped-in
    # board when it settles (after 20 ms by default): a tap before that sent the form without
    # htmx, a whole page load. Now it settles at once (base.html's htmx-config).
    anna, bo, game = anna_and_bo_at_a_table()
    a = tablet(new_context, live_server, anna, game)
    b = tablet(new_context, live_server, bo, game)
    loads = []
    b.on("framenavigated", lambda frame: loads.append(frame.url))
    a.click("button.act-nothing")  # R5.1: a window for Bo to check Anna's "nothing to do"
    expect(b.locator("button.act-ok")).to_be_visible(timeout=5_000)
    b.evaluate(TAP_AT_ONCE)
    b.click("button.act-ok")  # the window closes: Bo's turn, his answer shows his buttons
    expect(a.locator("#board")).to_have_attribute("data-version", "3", timeout=5_000)
    expect(b.locator("#board")).to_have_attribute("data-version", "3")
    assert loads == [], loads  # both taps went through htmx: no page was loaded again
