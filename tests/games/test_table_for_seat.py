"""games.permissions.table_for_seat: its one prepared statement says what own_seats says.

Every board fetch a push makes a tablet send asks it, so it is a hand-written SELECT rather
than an ORM query compiled each time; here it is checked against the ORM's rule (own_seats)
for every kind of user, and what it returns against what select_related would have read.
"""

from __future__ import annotations

import pytest
from django.http import Http404

from games import permissions
from games.models import Seat


def orm_table(user, game_id):
    """The rule as the ORM says it (the statement this replaced)."""
    from django.db.models import Exists, OuterRef

    mine = Seat.objects.filter(permissions.own_seats(user), game_id=OuterRef("game_id"))
    return list(
        Seat.objects.filter(Exists(mine), game_id=game_id)
        .select_related("game__classroom", "student")
        .order_by("position")
    )


@pytest.mark.django_db
def test_the_statement_lets_in_exactly_whom_own_seats_lets_in(tables):
    ours, theirs, users = tables
    for game in (ours, theirs):
        for name, user in users.items():
            expected = orm_table(user, game.pk)
            if not any(s.student is not None and s.student.user_id == user.pk for s in expected):
                with pytest.raises(Http404):
                    permissions.table_for_seat(user=user, game_id=game.pk)
                continue
            got_game, seat, seats = permissions.table_for_seat(user=user, game_id=game.pk)
            assert [s.pk for s in seats] == [s.pk for s in expected], name
            assert seat.student.user_id == user.pk
            assert got_game.pk == game.pk
    # A game id that does not exist, and one of another school's game for its student.
    with pytest.raises(Http404):
        permissions.table_for_seat(user=users["anna"], game_id=theirs.pk + 1000)
    with pytest.raises(Http404):
        permissions.table_for_seat(user=users["stranger"], game_id=ours.pk)


@pytest.mark.django_db
def test_what_it_reads_is_what_select_related_read(tables, django_assert_num_queries):
    ours, _theirs, users = tables
    expected = orm_table(users["anna"], ours.pk)
    with django_assert_num_queries(1):
        game, seat, seats = permissions.table_for_seat(user=users["anna"], game_id=ours.pk)
        # The related rows are read with it: no query for the class, the students, the game.
        assert game.classroom.name == expected[0].game.classroom.name
        assert [s.student.name if s.student else None for s in seats] == [
            s.student.name if s.student else None for s in expected
        ]
        assert all(s.game is game for s in seats)
    for got, want in zip(seats, expected, strict=True):
        for model_of, pair in ((Seat, (got, want)), (type(game), (got.game, want.game))):
            for field in model_of._meta.concrete_fields:
                assert getattr(pair[0], field.attname) == getattr(pair[1], field.attname), (
                    field.name
                )
    assert game.state == expected[0].game.state and isinstance(game.state, dict)
    assert game.started_at is not None and game.started_at == expected[0].game.started_at
    assert seats[1].student is None and seats[1].bot == "easy"
    assert not game._state.adding and seat._state.db == "default"
