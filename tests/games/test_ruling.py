"""The ruling panel's data (games.selectors.ruling_panel through table_context): who, what was
said, the verdict with its reason, causes before consequences, the cards concerned."""

from __future__ import annotations

import pytest
from django.utils import translation

from games import selectors, services
from games.models import Game
from tests.games.conftest import card, tokens

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


def submit(game: Game, seat: int, **move):
    game.refresh_from_db()
    outcome = services.move_submit(game_id=game.pk, seat=seat, move=move, seen_version=game.version)
    assert outcome.applied, outcome.message
    return outcome


def ruling(game: Game, seat):
    game.refresh_from_db()
    return selectors.table_context(game=game, seat=seat)["ruling"]


def seats(game):
    return {s.position: s for s in game.seats.all()}


def test_a_right_challenge_tells_the_wrong_operation_first_then_the_challenge_then_the_cards(
    make_game, anna, bo
):
    game = make_game([{"student": anna}, {"student": bo}])
    submit(game, 0, type="announce", tokens=tokens(card(2), "+", card(5), "=", card(3)))
    panel = ruling(game, seats(game)[1])
    assert panel["stage"] == "checking" and panel["main"]["said"] == "2 + 5 = 3"
    assert set(panel["cards"]) == {card(2), card(5), card(3)}
    submit(game, 1, type="challenge")
    assert ruling(game, seats(game)[1])["stage"] == "challenged"
    submit(game, 1, type="announce", tokens=tokens(card(2), "+", card(3), "=", card(5)))
    panel = ruling(game, seats(game)[0])
    # R3.5 wrong: the reason in words, from the engine's code and params.
    assert panel["main"]["verdict"] == {
        "ok": False,
        "word": "Wrong!",
        "reason": "2 + 5 makes 7, not 3.",
    }
    assert panel["challenge"]["who"] == "Bo" and panel["challenge"]["verdict"]["ok"] is True
    assert panel["outcome"]["word"] == "Good catch!"  # R5.4
    assert panel["consequences"][0] == "Bo wins 3 cards."
    speech = panel["speech"]
    assert (
        speech.index("Wrong!")
        < speech.index("Right!")
        < speech.index("Good catch!")
        < speech.index("Bo wins")
    )


def test_a_false_nothing_shows_the_operation_that_was_possible(make_game, anna, bo):
    game = make_game([{"student": anna}, {"student": bo}], challenge_window=0)
    submit(game, 0, type="nothing")
    panel = ruling(game, seats(game)[0])
    # R5.6: the child who said "nothing to do" sees what the table's own cards made.
    assert panel["main"]["kind"] == "nothing" and panel["main"]["mine"] is True
    assert panel["main"]["verdict"]["word"] == "Not true!"
    assert "2 + 3 = 5" in panel["main"]["verdict"]["reason"]
    assert set(panel["cards"]) == {card(2), card(3), card(5)}


def test_a_false_challenge_gives_the_verdict_before_the_zero_cards(make_game, anna, bo):
    game = make_game([{"student": anna}, {"student": bo}])
    submit(game, 0, type="announce", tokens=tokens(card(2), "+", card(3), "=", card(5)))
    submit(game, 1, type="challenge")  # R5.5: a correct announcement, challenged
    panel = ruling(game, seats(game)[1])
    assert panel["main"]["verdict"]["ok"] is True
    assert panel["outcome"] == {
        "ok": False,
        "word": "False challenge!",
        "reason": "Anna's operation was right.",
    }
    assert "Bo has no cards to give yet, so gives 0 cards." in panel["consequences"]


def test_the_panel_stays_until_the_next_turns_announcement(make_game, anna, bo):
    game = make_game(
        [{"student": anna}, {"student": bo}],
        challenge_window=0,
        draw=(card(2), card(3), card(5), card(1), card(4), card(9)),
    )
    submit(game, 0, type="announce", tokens=tokens(card(2), "+", card(3), "=", card(5)))
    first = ruling(game, seats(game)[1])
    assert first["main"]["who"] == "Anna" and first["main"]["verdict"]["ok"] is True
    assert ruling(game, seats(game)[1])["key"] == first["key"]  # the same ruling, read again
    submit(game, 0, type="nothing")  # a trick won plays on (R4.4): Anna's turn again
    second = ruling(game, seats(game)[1])
    assert second["main"]["kind"] == "nothing" and second["key"] != first["key"]


def test_read_aloud_follows_the_class_setting(make_game, anna, bo, classroom):
    game = make_game([{"student": anna}, {"student": bo}])
    assert selectors.read_aloud_setting(game) is True  # auto: the class's lowest tier is 1
    anna.tier = bo.tier = 2
    anna.save()
    bo.save()
    assert selectors.read_aloud_setting(game) is False
    classroom.read_aloud = "on"
    classroom.save()
    game.refresh_from_db()
    assert selectors.read_aloud_setting(game) is True
