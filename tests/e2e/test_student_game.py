"""Two students on two tablets and a computer player play a scripted game to the end screen.

The draw order is fixed; the table opens with 2 3 5. Anna wrongly says "nothing to do", Bo calls
"Kavet 'm eus!" and taps 2 + 3 = 5 (a right challenge, R5.4); Bo plays on (R5.4) on 1 6 7 and
Anna challenges his correct 1 + 6 = 7 (a false challenge, R5.5). (With the earlier draw, 1 4 9
came up after the challenge: since R5.4 lets the challenger play on, Bo had nothing to do there
and never announced again, so the false challenge could not happen.) Otherwise each student plays what the solver finds
and presses OK; the computer player moves from the tablets' polls (Celery is eager here).
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from games import engine, services
from games.models import Game, Play
from games.services import timers
from tests import factories
from tests.e2e.helpers import fresh

pytestmark = pytest.mark.django_db(transaction=True)

# Up to 10, one copy of each number, no X, no events: card id = value (11 cards, a short game).
DRAW = [2, 3, 5, 1, 6, 7, 4, 8, 9, 10, 0]


def sign_in(context, live_server, classroom, name, pictures):
    page = context.new_page()
    page.goto(live_server.url + "/tablet/")
    if page.locator("#class-code").count():
        page.fill("#class-code", classroom.code)
        page.click("button[type=submit]")
    page.click(f"a.name-btn:has-text('{name}')")
    for picture in pictures:
        page.click(f"button.picture-btn[aria-label='{picture}']")
    page.wait_for_url("**/me/")
    return page


def on_version(page, game):
    """Wait until this tablet's poll has caught up with the game (polls every 2 s)."""
    expect(page.locator("#board")).to_have_attribute(
        "data-version", str(game.version), timeout=15_000
    )


def caught_up(page, game) -> bool:
    """Wait until this tablet shows the game as the test read it; False if the game moved on.

    The computer player answers a challenge window within a few seconds, so the game can move
    while the tablet catches up: the caller then reads the game again instead of acting.
    """
    wanted = game.version
    try:
        on_version(page, game)
    except AssertionError:
        if fresh(game).version == wanted:
            raise
        return False
    return fresh(game).version == wanted


def moved_past(game, version: int, timeout: float = 10.0) -> bool:
    """Wait until the game is past `version` (re-read every 50 ms); False at the deadline, and
    the caller reads the game again (a tap the server refused leaves it where it was)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if fresh(game).version != version or game.status != Game.Status.RUNNING:
            return True
        time.sleep(0.05)
    return False


def test_two_students_and_a_computer_play_to_the_end(
    new_context, live_server, settings, monkeypatch
):
    school = factories.school()
    classroom = factories.classroom(school=school)
    anna = factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    bo = factories.student(classroom=classroom, name="Bo", picture_code="3-4-5")
    game = services.game_create(
        school=school,
        classroom=classroom,
        label="Table 1",
        draw_order=DRAW,
        players=[{"student": anna}, {"student": bo}, {"bot": "medium", "name": "Robo"}],
        settings={
            "copies": 1,
            "x_cards": 0,
            "events": False,
            "challenge_window": 20,
            "turn_time": 0,
            "challenge_time": 60,
        },
    )
    services.game_start(game=game)
    pages = {
        0: sign_in(
            new_context(viewport={"width": 1280, "height": 800}),
            live_server,
            classroom,
            "Anna",
            ["cat", "dog", "fish"],
        ),
        1: sign_in(
            new_context(viewport={"width": 800, "height": 1280}),
            live_server,
            classroom,
            "Bo",
            ["bird", "sun", "moon"],
        ),
    }
    for page in pages.values():
        page.click("text=Go to my table")
        expect(page.locator(".table-cards .card")).to_have_count(3)

    # 1. Anna says "nothing to do" although 2 + 3 = 5 was there.
    a, b = pages[0], pages[1]
    expect(a.locator(".whose-turn")).to_contain_text("Your turn!")
    # The computer player would answer this window within a few seconds, and it may spot the
    # miss too: give it a long pause here, so that the scripted challenge is Bo's.
    with monkeypatch.context() as slow_computer:
        slow_computer.setattr(timers, "_bot_delay", lambda strength, rng: 15.0)
        slow_computer.setattr(timers, "_answer_delay", lambda strength, rng: 15.0)
        a.click("button.act-nothing")
        # 2. Bo calls "Kavet 'm eus!" at once (before the computer player's pause is over) ...
        b.reload()
        b.click("button.act-challenge")
        expect(b.locator(".whose-turn")).to_contain_text("show your operation")
    # ... and taps 2 + 3 = 5 on the cards; the running result shows (R2.4).
    b.click(".table-cards .card[data-card='2']")
    b.click("button.key[data-op='+']")
    b.click(".table-cards .card[data-card='3']")
    expect(b.locator(".expr-steps")).to_contain_text("2 + 3 = 5")
    b.click("button.key[data-op='=']")
    b.click(".table-cards .card[data-card='5']")
    expect(b.locator(".expr-text")).to_have_text("2 + 3 = 5")
    b.click("button.act-announce")
    # The ruling, on both tablets: Anna's false "nothing to do" shows what was possible (R5.6).
    expect(b.locator(".ruling")).to_contain_text("Good catch!")
    expect(a.locator(".ruling")).to_contain_text("Good catch!", timeout=10_000)
    expect(a.locator(".ruling")).to_contain_text("There was something to do: 2 + 3 = 5")

    # 3. Play on to the end; Anna challenges Bo's next correct operation once (a false challenge).
    false_challenge_done = False
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        fresh(game)
        if game.status != Game.Status.RUNNING:
            break
        seen = game.version
        state = engine.GameState.from_dict(game.state)
        for seat, page in pages.items():
            legal = engine.legal_moves(state, seat)
            if not legal:
                continue
            if not caught_up(page, game):
                break  # the game moved on: read it again
            if "announce" in legal:
                table = [state.value_of(c) for c in state.table]
                held = [state.value_of(c) for c in state.held[seat]]
                op = engine.find_operation(table, state.config.rules, held=held)
                if op is None:
                    page.click("button.act-nothing")
                else:
                    page.click("details.typed summary")
                    page.fill(".typed-input", op.text)
                    page.click("button.act-announce")
            elif "challenge" in legal:
                pending = state.pending
                if (
                    seat == 0
                    and not false_challenge_done
                    and pending["kind"] == "announce"
                    and pending["seat"] == 1
                    and pending["ok"]
                ):
                    page.click("button.act-challenge")
                    expect(page.locator(".ruling")).to_contain_text("False challenge!")
                    false_challenge_done = True
                else:
                    page.click("button.act-ok")
            break
        # Acted or not (the computer player's turn), the next step starts once the game has
        # moved past what was read: a move applied, a ruling, a time-out.
        moved_past(game, seen)
    fresh(game)
    assert game.status == Game.Status.FINISHED, (
        f"the game did not end (phase {game.state['phase']})"
    )
    assert false_challenge_done, "Bo never made a correct operation Anna could challenge"

    for page in pages.values():
        expect(page.locator(".end-screen")).to_be_visible(timeout=10_000)
        expect(page.locator(".end-screen h2")).to_have_text("The game is over!")
        expect(page.locator(".ranking .rank")).to_have_count(3)
        expect(page.locator(".end-screen")).to_contain_text("Robo")
    pages[0].click("text=Back home")
    expect(pages[0].locator("h1")).to_contain_text("Hello Anna!")
    expect(pages[0].locator(".results")).to_contain_text("Bo")

    outcomes = set(
        Play.objects.filter(kind=Play.Kind.CHALLENGE).values_list("challenge_outcome", flat=True)
    )
    assert {"right", "false"} <= outcomes
    assert Play.objects.filter(student=anna, kind=Play.Kind.NOTHING, missed=True).exists()
