"""Computer players take their turns from Celery tasks, on a real worker, through the one service."""

from __future__ import annotations

import time

import pytest

from games import services
from games.models import Game, Move

from .conftest import card, tokens

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_bot_turn_is_played_by_a_real_celery_worker(celery_worker, make_game, anna):  # R8.2
    game = make_game(
        [{"student": anna}, {"bot": "hard", "name": "Robo"}], turn_time=0, challenge_window=0
    )
    # Anna passes; with challenges off the turn goes straight to the computer player.
    out = services.move_submit(game_id=game.pk, seat=0, seen_version=0, move={"type": "nothing"})
    assert out.applied and out.game.bot_due_at is not None
    deadline = time.monotonic() + 25
    while time.monotonic() < deadline:
        if Move.objects.filter(game=game, seat=1).exists():
            break
        time.sleep(0.25)
    bot_moves = list(Move.objects.filter(game=game, seat=1))
    assert bot_moves, "the worker did not play the computer player's turn"
    game.refresh_from_db()
    assert game.version == Move.objects.filter(game=game).count()
    assert game.status in (Game.Status.RUNNING, Game.Status.FINISHED)


def test_the_sweep_task_is_idempotent(make_game, anna):
    from datetime import timedelta

    from django.utils import timezone

    from games.tasks import sweep_due_games

    game = make_game([{"student": anna}, {"bot": "easy"}])
    Game.objects.filter(pk=game.pk).update(timer_deadline=timezone.now() - timedelta(seconds=1))
    assert sweep_due_games() == 1
    version = Game.objects.get(pk=game.pk).version
    assert sweep_due_games() == 0  # nothing due any more: a redelivery changes nothing
    assert Game.objects.get(pk=game.pk).version == version


def test_computers_answer_a_window_through_a_real_worker(celery_worker, make_game, anna):
    # R5.1: each computer's answer is a countdown task 1-2 s after the window opened; the
    # window closes once both have answered, long before its 10 s, each answer applied once.
    game = make_game([{"student": anna}, {"bot": "easy"}, {"bot": "easy"}])
    out = services.move_submit(
        game_id=game.pk,
        seat=0,
        seen_version=0,
        move={"type": "announce", "tokens": tokens(card(2), "+", card(3), "=", card(5))},
    )
    assert out.applied
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        answers = Move.objects.filter(game=game, payload__type__in=["ok", "challenge"])
        if answers.count() >= 2 or answers.filter(payload__type="challenge").exists():
            break
        time.sleep(0.1)
    game.refresh_from_db()
    moves = list(Move.objects.filter(game=game, number__gt=1).order_by("number"))
    answers = [m for m in moves if m.payload["type"] in ("ok", "challenge")]
    assert answers, "the worker did not play the computers' answers"
    assert len({m.seat for m in answers}) == len(answers)  # one answer each, never doubled
    assert not any(m.payload["type"] == "timeout" for m in moves)
    opened = out.game.last_move_at
    assert all((m.created_at - opened).total_seconds() < 9 for m in answers)
