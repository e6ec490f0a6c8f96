"""Who may read or change the games' rows (the rules of classrooms.permissions, for this app).

- staff read and manage the games of the classes they teach, with their seats and moves;
- a student reads their own seats and the games they sit at (and those games' moves);
- a student's plays follow the student (a parent reads their own child's, behind the figures of
  the child's report); practice goals follow the class.
"""

from __future__ import annotations

from django.db import connections, router
from django.db.models import Q, QuerySet
from django.http import Http404

from classrooms.models import Classroom, Student, User
from classrooms.permissions import (
    NOTHING,
    get_manageable_or_404,
    in_classroom,
    of_student_managed,
    of_student_readable,
    rules,
    staff_classrooms,
)
from kavet_site.prepared import Columns, Statement

from .models import Game, Move, Play, PracticeGoal, Seat
from .signals import table_group


def own_seats(user) -> Q:
    """The seats this user sits at: a student sees only the games they play in."""
    if (
        not getattr(user, "is_authenticated", False)
        or getattr(user, "role", "") != User.Role.STUDENT
    ):
        return NOTHING
    return Q(student__user=user, game__school_id=user.school_id)


def _game_managed(user) -> Q:
    return Q(classroom__in=staff_classrooms(user))


def _game_readable(user) -> Q:
    return _game_managed(user) | Q(pk__in=Seat.objects.filter(own_seats(user)).values("game_id"))


def _seat_managed(user) -> Q:
    return Q(game__classroom__in=staff_classrooms(user))


def _seat_readable(user) -> Q:
    return _seat_managed(user) | own_seats(user)


def _move_readable(user) -> Q:
    return Q(game__in=Game.objects.filter(_game_readable(user)).values("pk"))


def _move_managed(user) -> Q:
    return Q(game__in=Game.objects.filter(_game_managed(user)).values("pk"))


def game_get(user, pk: int) -> Game:
    """A table of a class the user teaches (the teacher's replay and controls)."""
    # With what names its group (games.signals.table_group): the class game, for its pages.
    games = Game.objects.select_related("classroom", *table_group.related)
    return get_manageable_or_404(user, games, what="game", pk=pk)


def seats_for_user(*, user) -> QuerySet[Seat]:
    """The seats this user sits at: a student sees only the games they play in."""
    return Seat.objects.filter(own_seats(user))


def game_for_seat(*, user, game_id: int) -> tuple[Game, Seat]:
    """The game and this user's seat at it; 404 for a game they do not sit at."""
    seat = (
        seats_for_user(user=user)
        .select_related("game")
        .filter(game_id=game_id)
        .order_by("position")
        .first()
    )
    if seat is None:
        raise Http404("no such game")
    return seat.game, seat


def table_for_seat(*, user, game_id: int) -> tuple[Game, Seat, list[Seat]]:
    """game_for_seat with the whole table, in one statement: the game (and its class), this
    user's seat at it and every seat, for the table's board; 404 for a game they do not sit at.

    The rule is own_seats' (a student, at a game of their school where one seat is theirs), as
    one prepared statement (`_TableRead`): every board fetch a push makes a tablet send asks
    this, and Django compiling the same query each time was a quarter of a fetch's CPU.
    tests/games/test_table_for_seat.py checks it against the ORM's own_seats for every kind of
    user."""
    school_id, user_id = player(user)
    seats = _TableRead.of(router.db_for_read(Seat)).seats(game_id, school_id, user_id)
    seat = own_seat(seats, user_id)
    if seat is None:
        raise Http404("no such game")
    return seat.game, seat, seats


def player(user) -> tuple[int, int]:
    """The school and the user a student's table reads are checked with (own_table_where);
    404 for anyone else: own_seats(user) is NOTHING for them, and no game has no school."""
    if (
        not getattr(user, "is_authenticated", False)
        or getattr(user, "role", "") != User.Role.STUDENT
        or not user.school_id
    ):
        raise Http404("no such game")
    return user.school_id, user.pk


def own_seat(seats, user_id: int) -> Seat | None:
    """The player's seat among a table's seats (by position): their first, as game_for_seat."""
    return next((s for s in seats if s.student is not None and s.student.user_id == user_id), None)


def own_table_where(alias: str, game: str) -> str:
    """own_seats' rule as SQL for the game `game` of a statement (table_for_seat's, and the
    move's locked read: games.services.locked): a game of the player's school where one seat is
    theirs. Two parameters, player(user)'s: the school's id, the user's id."""
    q = connections[alias].ops.quote_name

    def column(model, name: str) -> str:
        return q(model._meta.get_field(name).column)

    seat_student = column(Seat, "student")
    return (
        f"{game}.{column(Game, 'school')} = %s AND EXISTS ("
        f"SELECT 1 FROM {q(Seat._meta.db_table)} m INNER JOIN {q(Student._meta.db_table)} ms"
        f" ON ms.{q(Student._meta.pk.column)} = m.{seat_student}"
        f" WHERE m.{column(Seat, 'game')} = {game}.{q(Game._meta.pk.column)}"
        f" AND ms.{column(Student, 'user')} = %s)"
    )


class _TableRead(Statement):
    """The seats of one table with their game, its class and their students: one SELECT,
    written once per database connection's vendor, its rows made into model instances as
    Django's select_related would (the fields' converters, Model.from_db, related caches)."""

    def __init__(self, alias: str) -> None:
        self.alias = alias
        q = connections[alias].ops.quote_name
        # Each model's columns and where they start in the row.
        self.parts: list[tuple[Columns, int]] = []
        columns: list[str] = []
        for name, model in (("s", Seat), ("g", Game), ("c", Classroom), ("st", Student)):
            part = Columns(alias, model, name)
            self.parts.append((part, len(columns)))
            columns += part.columns

        def table(model) -> str:
            return q(model._meta.db_table)

        def column(model, name: str) -> str:
            return q(model._meta.get_field(name).column)

        seat_game, seat_student = column(Seat, "game"), column(Seat, "student")
        self.sql = (
            f"SELECT {', '.join(columns)} FROM {table(Seat)} s"
            f" INNER JOIN {table(Game)} g ON g.{q(Game._meta.pk.column)} = s.{seat_game}"
            f" LEFT JOIN {table(Classroom)} c"
            f" ON c.{q(Classroom._meta.pk.column)} = g.{column(Game, 'classroom')}"
            f" LEFT JOIN {table(Student)} st"
            f" ON st.{q(Student._meta.pk.column)} = s.{seat_student}"
            f" WHERE s.{seat_game} = %s AND {own_table_where(alias, 'g')}"
            f" ORDER BY s.{column(Seat, 'position')}"
        )

    @staticmethod
    def _instance(part, row):
        columns, first = part
        return columns.instance(row, first)

    def seats(self, game_id: int, school_id: int, user_id: int) -> list[Seat]:
        rows = self.fetch([game_id, school_id, user_id])
        if not rows:
            return []
        seat_part, game_part, class_part, student_part = self.parts
        game = self._instance(game_part, rows[0])
        classroom = self._instance(class_part, rows[0])
        Game._meta.get_field("classroom").set_cached_value(game, classroom)
        seats = []
        for row in rows:
            seat = self._instance(seat_part, row)
            Seat._meta.get_field("game").set_cached_value(seat, game)  # one game for the table
            Seat._meta.get_field("student").set_cached_value(
                seat, self._instance(student_part, row)
            )
            seats.append(seat)
        return seats


rules(Game, read=_game_readable, manage=_game_managed)
rules(Seat, read=_seat_readable, manage=_seat_managed)
rules(Move, read=_move_readable, manage=_move_managed)
rules(Play, read=of_student_readable, manage=of_student_managed)
rules(PracticeGoal, read=in_classroom)
