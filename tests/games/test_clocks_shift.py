"""games.services.game_clocks_shift: every moment of a game moved by the same amount, by the one
writer of its rows (the demo's running game, looked at later than it was built)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Game, Move, Play, Seat
from tests.games.conftest import card, tokens

pytestmark = pytest.mark.django_db


def _moments(game: Game) -> dict:
    row = Game.objects.get(pk=game.pk)
    return {
        "game": {name: getattr(row, name) for name in services.timers.GAME_CLOCKS},
        "moves": list(Move.objects.filter(game=game).order_by("pk").values_list("created_at")),
        "plays": list(Play.objects.filter(game=game).order_by("pk").values_list("at")),
        "seats": list(Seat.objects.filter(game=game).order_by("pk").values_list("last_seen_at")),
    }


def _later(value, shift):
    if isinstance(value, tuple):
        return tuple(_later(v, shift) for v in value)
    if isinstance(value, list):
        return [_later(v, shift) for v in value]
    if isinstance(value, dict):
        return {k: _later(v, shift) for k, v in value.items()}
    return None if value is None else value + shift


def test_every_moment_of_a_game_moves_by_the_shift_and_null_stays_null(make_game, anna, bo):
    game = make_game([{"student": anna}, {"student": bo}])
    announce = {"type": "announce", "tokens": tokens(card(2), "+", card(3), "=", card(5))}
    assert services.move_submit(game_id=game.pk, seat=0, seen_version=0, move=announce).applied
    Seat.objects.filter(game=game, position=0).update(last_seen_at=timezone.now())
    before = _moments(game)
    assert before["moves"] and before["plays"] and None in [s for (s,) in before["seats"]]
    shift = timedelta(minutes=46)
    services.game_clocks_shift(game_id=game.pk, shift=shift)
    assert _moments(game) == _later(before, shift)
    row = Game.objects.get(pk=game.pk)
    assert row.version == 1 and row.status == Game.Status.RUNNING  # the same game, only later
