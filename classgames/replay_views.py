"""The replays a child and a parent may open: the child's own finished games, move by move.

The teacher's replay is classgames.views.game_replay. Here a child opens only a game they sat
at, a parent only a game their linked child sat at, and on the parent's page every other child
is "Player N" (their seat number); computer players keep their names.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import render

from classrooms import permissions
from games import permissions as game_permissions
from games.models import Game
from games.selectors import student_of

from . import selectors

DONE = (Game.Status.FINISHED, Game.Status.ABANDONED)


def student_replay(request: HttpRequest, pk: int) -> HttpResponse:
    """A child replays one of their own finished games (from "My last games")."""
    game, seat = game_permissions.game_for_seat(
        user=request.user, game_id=pk
    )  # 404 for anyone else
    if game.status not in DONE:
        raise Http404("this game is not over")
    if request.method != "GET":
        return HttpResponseNotAllowed(["GET"])
    student = student_of(request.user)
    replay = selectors.game_replay(game, players=selectors.replay_names(game))
    return render(
        request,
        "classrooms/replay_student.html",
        {
            "student": student,
            "game": game,
            "seat": seat,
            "replay": replay,
            "at_move": selectors.replay_at_move(request),
        },
    )


@login_required
def parent_replay(request: HttpRequest, student_id: int, pk: int) -> HttpResponse:
    """A parent replays a finished game their child sat at; the other children stay unnamed."""
    child = permissions.child_get(request.user, student_id)
    game = (
        Game.objects.filter(pk=pk, status__in=DONE, seats__student=child)
        .select_related("classroom")
        .first()
    )
    if game is None:
        raise Http404("no such game")
    if request.method != "GET":  # after the check: a foreign id is a 404 whatever the method
        return HttpResponseNotAllowed(["GET"])
    replay = selectors.game_replay(game, players=selectors.replay_names(game, child=child))
    return render(
        request,
        "classrooms/replay_parent.html",
        {
            "student": child,
            "game": game,
            "replay": replay,
            "at_move": selectors.replay_at_move(request),
        },
    )
