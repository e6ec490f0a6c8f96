"""'Learn to play' (issue 10, item 10): the guided first game, played to its end on the real
services and engine. The fixed deal brings each step in order (R4, R5, R3.4, R7.2, R6.1),
each step's move is accepted by the engine, a wrong tap gets the engine's normal answer and
the coach repeats the step, and a move off the script leaves the lesson, never the game.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import selectors, services, tutorial
from games.models import Game, Seat

pytestmark = pytest.mark.django_db


class Clock:
    """Time moving on between the computer player's moves (its pauses, R8.2), under the
    900 s the lesson gives the child to check (R5.1)."""

    def __init__(self) -> None:
        self.now = timezone.now()

    def tick(self, game: Game) -> int:
        self.now += timedelta(seconds=20)
        return services.game_tick(game_id=game.pk, now=self.now)


def coach(game: Game) -> dict:
    game.refresh_from_db()
    seat = Seat.objects.get(game=game, position=tutorial.CHILD)
    ctx = selectors.table_context(game=game, seat=seat)
    return ctx["tutorial"]


def child_move(game: Game, move: dict) -> services.MoveOutcome:
    game.refresh_from_db()
    return services.move_submit(
        game_id=game.pk, seat=tutorial.CHILD, move=move, seen_version=game.version
    )


def play_lesson(game: Game, on_step=None) -> list[str]:
    """Follow the coach to the end: the child's moves, the computer's when they are due."""
    clock, moves, steps = Clock(), iter(tutorial.CHILD_MOVES), []
    for _round in range(60):
        shown = coach(game)
        key = shown["step"] if not shown["done"] else "done"
        if not steps or steps[-1] != key:
            steps.append(key)
            if on_step:
                on_step(game, shown)
        if shown["done"]:
            return steps
        assert not shown["off"], steps
        if shown["key"] == "wait":
            assert clock.tick(game) >= 1, f"the computer did not play at {key}"
            continue
        outcome = child_move(game, next(moves))
        assert outcome.applied, (key, outcome.refusal_code, outcome.message)
    raise AssertionError(f"the lesson did not end: {steps}")


def test_a_seed_plays_the_lesson_on_the_pure_engine():
    assert tutorial.script_works(tutorial.tutorial_seed())


def test_the_guided_first_game_is_played_to_its_end(anna):
    game = tutorial.tutorial_create(student=anna)
    assert tutorial.is_tutorial(game)
    assert [s.bot for s in Seat.objects.filter(game=game).order_by("position")] == ["", "easy"]
    # The steps come in the lesson's order; the computer's mistake is real (R5.3, R5.4).
    assert play_lesson(game) == [
        "announce",
        "nothing",
        "challenge",
        "challenge_show",
        "skip",
        "x",
        "event",
        "done",
    ]
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    state = game.state
    assert state["phase"] == "over" and state["result"]["reason"] == "no_operation"  # R6.1
    unan = [s for s in state["result"]["settlements"] if s["kind"] == "unan"]
    assert unan and unan[0]["seat"] == tutorial.CHILD  # R7.2: the cards left are the child's
    assert Seat.objects.get(game=game, position=tutorial.CHILD).place == 1
    verdicts = [
        e for m in game.moves.order_by("number") for e in m.events if e["type"] == "verdict"
    ]
    slip = next(v for v in verdicts if v["seat"] == tutorial.COMPUTER)
    assert slip["text"] == "4 + 6 = 9" and not slip["ok"] and slip["code"]
    assert [
        e["outcome"] for m in game.moves.all() for e in m.events if e["type"] == "challenge_ruled"
    ] == ["right"]
    assert any(e["type"] == "skipped" for m in game.moves.all() for e in m.events)  # R5.4


def test_a_wrong_tap_gets_the_engines_answer_and_the_coach_repeats_the_step(anna):
    game = tutorial.tutorial_create(student=anna)
    version = game.version
    assert coach(game)["step"] == "announce"
    wrong = [
        ({"type": "announce", "tokens": tutorial.tokens(1, "+", 4, "=", 3)}, "card_unavailable"),
        ({"type": "announce", "tokens": tutorial.tokens(1, "+", 2, "=", 2)}, None),
        ({"type": "ok"}, "wrong_phase"),
        ({"type": "challenge"}, "wrong_phase"),
    ]
    for move, code in wrong:
        outcome = child_move(game, move)
        assert not outcome.applied and outcome.message  # R3.5: refused, told why
        if code:
            assert outcome.refusal_code == code
        shown = coach(game)
        assert shown["step"] == "announce" and not shown["off"]
        assert game.version == version  # R9.3: a refused move changes nothing

    # The same when showing the right sum after "Kavet 'm eus!": a card used twice is refused
    # (R3.5), the challenge goes on and the coach asks again.
    def at_challenge_show(g, shown):
        if shown["step"] == "challenge_show":
            before = g.version
            outcome = child_move(
                g, {"type": "announce", "tokens": tutorial.tokens(4, "+", 4, "=", 9)}
            )
            assert not outcome.applied
            again = coach(g)
            assert again["step"] == "challenge_show" and g.version == before

    steps = play_lesson(game, on_step=at_challenge_show)
    assert steps[-1] == "done"


def test_off_the_script_the_coach_helps_to_play_on(anna):
    game = tutorial.tutorial_create(student=anna)
    # A false "nothing to do" at the first table: the engine takes it (R4.5), the lesson is left.
    assert child_move(game, {"type": "nothing"}).applied
    shown = coach(game)
    assert shown["off"] and shown["key"] == "off" and shown["title"]


def test_only_the_lessons_game_has_a_coach(anna):
    game, _deal = services.practice_create(student=anna, bots=1, strength="easy")
    services.game_start(game=game)
    game.refresh_from_db()
    assert not tutorial.is_tutorial(game)
    seat = Seat.objects.get(game=game, position=0)
    assert selectors.table_context(game=game, seat=seat).get("tutorial") is None


def test_learn_to_play_button_starts_the_lesson(client, anna):
    client.force_login(anna.user)
    home = client.get(reverse("games:student_home"))
    assert reverse("games:tutorial_start") in home.content.decode()
    response = client.post(reverse("games:tutorial_start"))
    game = Game.objects.get(seats__student=anna)
    assert response.status_code == 302 and response.url == reverse("games:table", args=[game.pk])
    page = client.get(response.url).content.decode()
    assert 'id="coach"' in page and "coach.js" in page and "Make a sum!" in page
    # Tapping again goes back to the same lesson; "Start again" ends it and deals a new one.
    assert client.post(reverse("games:tutorial_start")).url == response.url
    again = client.post(reverse("games:tutorial_start"), {"again": "1"})
    game.refresh_from_db()
    assert game.status == Game.Status.ABANDONED
    new = Game.objects.exclude(pk=game.pk).get(seats__student=anna)
    assert again.url == reverse("games:table", args=[new.pk]) and tutorial.is_tutorial(new)
    assert client.get(reverse("games:tutorial_start")).status_code == 405


def test_the_end_screen_says_well_done(client, anna):
    game = tutorial.tutorial_create(student=anna)
    play_lesson(game)
    client.force_login(anna.user)
    page = client.get(reverse("games:table", args=[game.pk])).content.decode()
    assert "Well done!" in page and "You know how to play." in page and "trophy.svg" in page
    assert reverse("games:student_home") in page


def test_another_open_game_comes_first(client, anna):
    game, _deal = services.practice_create(student=anna, bots=1, strength="easy")
    services.game_start(game=game)
    client.force_login(anna.user)
    response = client.post(reverse("games:tutorial_start"), {"again": "1"})
    assert response.url == reverse("games:table", args=[game.pk])
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
