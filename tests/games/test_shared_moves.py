"""games.table_cache.shared_moves: a version's recent moves built from the previous version's
list and the moves after it are the list read in full, at every version."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from games import table_cache
from games.engine.game import GameState, legal_moves
from games.models import Game, Move
from tests.games.test_table_cache import board_caches  # noqa: F401 - the two caches

pytestmark = pytest.mark.django_db


def play_one(game: Game) -> Game:
    from games import services

    state = GameState.from_dict(game.state)
    seat, kind = next(
        (s, k) for s in range(2) for k in ("nothing", "ok") if k in legal_moves(state, s)
    )
    outcome = services.move_submit(
        game_id=game.pk, seat=seat, move={"type": kind}, seen_version=game.version
    )
    assert outcome.applied
    return Game.objects.get(pk=game.pk)


def full(game: Game, limit: int) -> list[tuple[int, list]]:
    rows = Move.objects.filter(game=game).order_by("-number")[:limit]
    return [(m.number, m.events) for m in reversed(list(rows))]


def test_each_version_from_the_last_is_the_full_read(board_caches, make_game, anna, bo):  # noqa: F811
    game = make_game([{"student": anna}, {"student": bo}], challenge_window=600)
    limit = 3  # short, so the list is trimmed after a few moves
    table_cache.shared_moves(game, limit)  # the first version's list, read in full
    for _ in range(6):
        game = play_one(game)
        assert cache.get(table_cache._moves_key(game, limit, game.version - 1)) is not None
        got = table_cache.shared_moves(game, limit)
        assert [(m.number, m.events) for m in got] == full(game, limit)
        # The full read itself (one statement made once), at every version.
        got = table_cache._moves_last(game.pk, limit)
        assert [(m.number, m.events) for m in got] == full(game, limit)
    # Without the previous version's list (expired, another status): the full read.
    cache.clear()
    game = play_one(game)
    got = table_cache.shared_moves(game, limit)
    assert [(m.number, m.events) for m in got] == full(game, limit)


def test_each_versions_sentences_from_the_last_are_the_full_telling(
    board_caches,  # noqa: F811
    make_game,
    anna,
    bo,
):
    """shared_told: only the new move is told; the list equals telling every move again."""
    game = make_game([{"student": anna}, {"student": bo}], challenge_window=600)
    told_anew = []

    def said(move):
        told_anew.append(move.number)
        return [f"{players[0]} and {players[1]}: move {move.number}"]

    players = ["Anna", "Bo"]
    for _ in range(5):
        game = play_one(game)
        recent = table_cache.shared_moves(game, 40)
        told_anew.clear()
        got = table_cache.shared_told(game, "told.test", recent, said, players)
        assert got == [(m.number, [f"Anna and Bo: move {m.number}"]) for m in recent]
        assert told_anew == ([recent[-1].number] if game.version > 1 else [1])
        # Asked again at this version: stored, nothing told.
        told_anew.clear()
        assert table_cache.shared_told(game, "told.test", recent, said, players) == got
        assert told_anew == []
    # A seat renamed (given to a computer player): every move told again with the new names.
    game = play_one(game)
    recent = table_cache.shared_moves(game, 40)
    players = ["Anna", "Computer 1"]
    told_anew.clear()
    got = table_cache.shared_told(game, "told.test", recent, said, players)
    assert told_anew == [m.number for m in recent]
    assert got[0][1] == [f"Anna and Computer 1: move {recent[0].number}"]
