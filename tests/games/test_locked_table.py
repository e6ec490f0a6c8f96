"""games.services.locked: a move's one locked read says what _locked and _seats said.

The game row locked, its class and its group beside it, every seat with its student: one
prepared statement instead of two ORM queries compiled per move. Checked here against the
ORM's reads, for a table of a class game (its group read with it) and one of none, with a
computer player's seat, and for the lock itself (a second transaction waits for it).
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from games import signals
from games.models import Game
from games.services.base import _locked, _locked_table, _seats
from games.services.locked import locked_table
from tests import factories
from tests.games.locking import tried_while_locked


def _same(got, want) -> None:
    for field in type(want)._meta.concrete_fields:
        assert getattr(got, field.attname) == getattr(want, field.attname), field.name


@pytest.fixture
def two_tables(classroom, teacher, anna, bo, make_game):
    class_game = factories.class_table(classroom=classroom, teacher=teacher, students=[anna, bo])
    alone = make_game([{"student": anna}, {"bot": "easy"}, {"student": bo}])
    return class_game, alone


@pytest.mark.django_db
def test_the_statement_reads_what_the_orm_read(two_tables, django_assert_num_queries):
    for game in two_tables:
        with transaction.atomic():
            want_game = _locked(game.pk)
            want_seats = _seats(want_game)
            with django_assert_num_queries(1):
                got_game, got_seats = locked_table(game.pk)
                # Read with it: the class, the group, the students, the seats' game.
                assert got_game.classroom.name == want_game.classroom.name
                assert signals.table_group.of(got_game) == signals.table_group.of(want_game)
                assert [s.student.name if s.student else None for s in got_seats.values()] == [
                    s.student.name if s.student else None for s in want_seats.values()
                ]
                assert all(s.game is got_game for s in got_seats.values())
        _same(got_game, want_game)
        assert isinstance(got_game.state, dict) and got_game.state == want_game.state
        assert list(got_seats) == list(want_seats)
        for position, seat in got_seats.items():
            _same(seat, want_seats[position])
            if seat.student is not None:
                _same(seat.student, want_seats[position].student)
        assert not got_game._state.adding and got_game._state.db == "default"
    class_game, alone = two_tables
    assert signals.table_group.of(class_game) is not None
    assert signals.table_group.of(locked_table(alone.pk)[0]) is None
    assert (
        locked_table(alone.pk)[1][1].bot == "easy" and locked_table(alone.pk)[1][1].student is None
    )


@pytest.mark.django_db
def test_a_game_that_does_not_exist(two_tables):
    with pytest.raises(Game.DoesNotExist):
        _locked_table(max(g.pk for g in two_tables) + 1000)


@pytest.mark.django_db
def test_a_game_with_no_seat_yet(school, classroom):
    game = Game.objects.create(school=school, classroom=classroom, config={}, state={}, seed=1)
    got, seats = locked_table(game.pk)
    assert got.pk == game.pk and seats == {}


@pytest.mark.django_db(transaction=True)
def test_it_locks_the_game_row(two_tables):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's (SQLite serialises its writers)")
    game = two_tables[1]
    came = tried_while_locked(
        game.pk, select=lambda: Game.objects.select_for_update(no_key=True).get(pk=game.pk)
    )
    assert came == {"select": "OperationalError"}, came
