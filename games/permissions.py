"""Who may read or change the games' rows (the rules of classrooms.permissions, for this app).

- staff read and manage the games of the classes they teach, with their seats and moves;
- a student reads their own seats and the games they sit at (and those games' moves);
- a student's plays follow the student (a parent reads their own child's, behind the figures of
  the child's report); practice goals follow the class.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import Http404

from classrooms.models import User
from classrooms.permissions import (
    NOTHING,
    get_manageable_or_404,
    getter,
    in_classroom,
    of_student_managed,
    of_student_readable,
    rules,
    staff_classrooms,
)

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


@getter
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
    user's seat at it and every seat, for the table's board; 404 for a game they do not sit at."""
    mine = Seat.objects.filter(own_seats(user), game_id=OuterRef("game_id"))
    seats = list(
        Seat.objects.filter(Exists(mine), game_id=game_id)
        .select_related("game__classroom", "student")
        .order_by("position")
    )
    seat = next((s for s in seats if s.student is not None and s.student.user_id == user.pk), None)
    if seat is None:
        raise Http404("no such game")
    game = seat.game
    for other in seats:
        other.game = game  # one game object for the whole table
    return game, seat, seats


rules(Game, read=_game_readable, manage=_game_managed)
rules(Seat, read=_seat_readable, manage=_seat_managed)
rules(Move, read=_move_readable, manage=_move_managed)
rules(Play, read=of_student_readable, manage=of_student_managed)
rules(PracticeGoal, read=in_classroom)
