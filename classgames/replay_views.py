"""The replays a child and a parent may open: the child's own finished games, move by move.

The teacher's replay is classgames.views.game_replay. Here a child opens only a game they sat
at, a parent only a game their linked child sat at, and on the parent's page every other child
is "Player N" (their seat number); computer players keep their names.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from classrooms import permissions
from games.models import Game
from games.selectors import student_of

from . import selectors

DONE = (Game.Status.FINISHED, Game.Status.ABANDONED)


@require_GET
def student_replay(request: HttpRequest, pk: int) -> HttpResponse:
    """A child replays one of their own finished games (from "My last games")."""
    student = student_of(request.user)
    if student is None:
        return redirect("games:tablet_signin")
    game, seat = permissions.game_for_seat(user=request.user, game_id=pk)
    if game.status not in DONE:
        raise Http404("this game is not over")
    replay = selectors.game_replay(game, players=selectors.replay_names(game))
    return render(
        request,
        "classrooms/replay_student.html",
        {"student": student, "game": game, "seat": seat, "replay": replay},
    )


@login_required
@require_GET
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
    replay = selectors.game_replay(game, players=selectors.replay_names(game, child=child))
    return render(
        request,
        "classrooms/replay_parent.html",
        {"student": child, "game": game, "replay": replay},
    )
