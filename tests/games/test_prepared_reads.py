"""The reads and writes of every move and every board fetch go through kavet_site.prepared's
cursor: on PostgreSQL the server holds each of them prepared after its first run (so a new hot
statement written with a plain cursor shows up here)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import timezone

from games import permissions, services
from games.services.locked import locked_table
from games.services.seats import seat_poll_seen

pytestmark = pytest.mark.django_db


def _prepared() -> list[str]:
    with connection.cursor() as c:
        c.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in c.fetchall()]


def test_a_moves_and_a_fetchs_statements_are_prepared(make_game, anna, bo):  # R9.2
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    game = make_game([{"student": anna}, {"student": bo}])
    permissions.table_for_seat(user=anna.user, game_id=game.pk)  # a board fetch's table read
    seat_poll_seen(game_id=game.pk, position=0, now=timezone.now())  # a poll's check
    out = services.move_submit(  # the locked read, the Move, the game's UPDATE
        game_id=game.pk,
        move={"type": "nothing"},
        seen_version=0,
        by=anna.user,
        player=permissions.player(anna.user),
    )
    assert out.applied
    locked_table(game.pk)  # a computer's or a timer's move: the same read without a player
    held = " ".join(_prepared())
    for part in (
        'FROM "games_seat" s INNER JOIN "games_game" g',  # table_for_seat
        "FOR NO KEY UPDATE OF g",  # the locked read
        'INSERT INTO "games_move"',
        'UPDATE "games_game" SET',
        'WITH touched AS (UPDATE "games_seat"',  # the poll's presence stamp and check
    ):
        assert part in held, part
