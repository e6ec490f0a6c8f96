"""Erasing a student while their table plays on (PostgreSQL, separate connections).

The lock order is the game row first, then its seats and moves, then the student row
(games.services.student_games_erase before classrooms.services.student_erase locks the
student): the order every move takes, so the two never wait for each other in a circle.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from classrooms.models import Student
from classrooms.services import student_erase
from games import services
from games.models import Game, Move, Seat
from tests import factories
from tests.conftest import need_service

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_erasing_a_student_while_moves_are_played_neither_deadlocks_nor_loses_a_move(
    make_game, classroom
):  # R9.2: every applied move is kept, numbered without a gap
    need_service(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL) for row locks")
    kids = [factories.student(classroom=classroom, name=f"Kid{i}") for i in range(3)]
    game = make_game([{"student": k} for k in kids])
    leaver = kids[2]
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []
    applied: list[int] = []

    def play() -> None:
        try:
            barrier.wait(timeout=20)
            for _round in range(15):
                current = Game.objects.get(pk=game.pk)
                state = current.state
                out = services.move_submit(
                    game_id=game.pk,
                    seat=state["active"],
                    seen_version=current.version,
                    move={"type": "nothing"},
                )
                if out.applied:
                    applied.append(out.game.version)
                    # Everyone else answers the "nothing to do" window at once (R5).
                    services.game_tick(game_id=game.pk, now=out.game.timer_deadline)
        except BaseException as exc:  # collected, so the test fails with the cause
            errors.append(exc)
        finally:
            connections.close_all()

    def erase() -> None:
        try:
            barrier.wait(timeout=20)
            student_erase(student=Student.objects.get(pk=leaver.pk))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=play), threading.Thread(target=erase)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread is still waiting for a lock"
    assert not errors, errors
    assert not Student.objects.filter(pk=leaver.pk).exists()
    game.refresh_from_db()
    numbers = list(
        Move.objects.filter(game=game).order_by("number").values_list("number", flat=True)
    )
    assert numbers == list(range(1, game.version + 1))  # no lost, no doubled move
    assert set(applied) <= set(numbers) and applied
    seat = Seat.objects.get(game=game, position=2)
    assert seat.student_id is None and seat.name == "—"
    assert game.config["players"][2] == "—" and game.state["config"]["players"][2] == "—"
