"""A move's seat is checked in its one locked read (games.services.locked, own_seats' rule).

The move view no longer reads the table once to check the player and again under the lock:
`move_submit(player=...)` reads, under the game's lock, only a game the player sits at. Here
the locked read lets in exactly whom games.permissions.table_for_seat lets in (both ways of
reading it: the one statement and the ORM's fallback), a refused player locks nothing and
waits for no one, and through the view a move from anyone else answers 404 and changes nothing.
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.http import Http404
from django.urls import reverse

from games import permissions, services
from games.models import Game, Move
from games.services import locked
from games.services.base import _locked_table
from tests.games.locking import tried_while_locked

HX = {"HTTP_HX_REQUEST": "true"}


def _allowed(user, game_id) -> bool:
    try:
        permissions.table_for_seat(user=user, game_id=game_id)
    except Http404:
        return False
    return True


@pytest.mark.django_db
@pytest.mark.parametrize("way", ["statement", "orm"])
def test_the_locked_read_lets_in_exactly_whom_table_for_seat_lets_in(tables, way, monkeypatch):
    if way == "orm":  # where the one statement cannot stand in (LockedTable.of gives None)
        monkeypatch.setattr(locked.LockedTable, "of", classmethod(lambda cls, alias: None))
    ours, theirs, users = tables
    for game in (ours, theirs, ours.pk + 1000):
        game_id = getattr(game, "pk", game)
        for name, user in users.items():
            allowed = _allowed(user, game_id)
            try:
                player = permissions.player(user)
            except Http404:
                assert not allowed, name  # not a student: 404 before any read
                continue
            with transaction.atomic():
                if not allowed:
                    with pytest.raises(Game.DoesNotExist):
                        _locked_table(game_id, player)
                    continue
                got, seats = _locked_table(game_id, player)
                want, want_seats = _locked_table(game_id)
            assert got.pk == want.pk == game_id, name
            assert [(p, s.pk) for p, s in seats.items()] == [
                (p, s.pk) for p, s in want_seats.items()
            ]
            own = permissions.own_seat(seats.values(), user.pk)
            _game, seat, _seats = permissions.table_for_seat(user=user, game_id=game_id)
            assert own.pk == seat.pk, name


@pytest.mark.django_db(transaction=True)
def test_a_player_who_does_not_sit_at_the_game_locks_nothing(tables):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's (SQLite serialises its writers)")
    ours, _theirs, users = tables
    other = tried_while_locked(
        ours.pk,  # a move at this table holds its lock; Cleo sits at another, Anna at this one
        cleo=lambda: _locked_table(ours.pk, permissions.player(users["cleo"])),
        anna=lambda: _locked_table(ours.pk, permissions.player(users["anna"])),
    )
    # Cleo's read found nothing at once (no lock waited for, none taken); Anna's waited.
    assert other == {"cleo": "none", "anna": "OperationalError"}, other


@pytest.mark.django_db
def test_a_move_from_anyone_else_answers_404_and_changes_nothing(client, tables):
    ours, _theirs, users = tables
    before = Game.objects.get(pk=ours.pk)
    for name in ("cleo", "stranger", "teacher", "parent"):
        client.force_login(users[name])
        for data in (
            {"seen_version": before.version, "type": "nothing"},
            {"seen_version": before.version, "type": "bogus"},  # refused by the form: 404 too
        ):
            response = client.post(reverse("games:table_move", args=[ours.pk]), data, **HX)
            assert response.status_code == 404, (name, data)
    client.logout()
    response = client.post(
        reverse("games:table_move", args=[ours.pk]), {"seen_version": 0, "type": "nothing"}
    )
    assert response.status_code in (302, 403, 404)
    after = Game.objects.get(pk=ours.pk)
    assert (after.version, after.state) == (before.version, before.state)
    assert not Move.objects.filter(game=ours).exists()


def _submit(game, user, move: dict):
    """A move from `user`'s tablet as the view sends it: their seat found under the lock."""
    return services.move_submit(
        game_id=game.pk, move=move, seen_version=0, by=user, player=permissions.player(user)
    )


@pytest.mark.django_db
def test_the_players_own_seat_comes_with_the_outcome(tables):  # R5.1
    ours, _theirs, users = tables
    bo, anna = users["bo"], users["anna"]
    out = _submit(ours, bo, {"type": "nothing"})
    # Bo's seat (position 2) is not the player to move: the engine refuses, nothing changes;
    # the outcome still names Bo's seat, for the board the answer shows.
    assert out.seat is not None and out.seat.position == 2 and out.seat.student.user_id == bo.pk
    assert not out.applied and out.refusal_code
    out = _submit(ours, bo, {"type": "bad"})
    assert out.refusal_code == "bad_move" and out.seat.position == 2
    out = _submit(ours, anna, {"type": "nothing"})
    assert out.applied and out.seat.position == 0
    assert Move.objects.filter(game=ours).get().seat == 0
