"""'Learn to play': the student home's button that starts the guided first game (games.tutorial)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import selectors, services, tutorial


@require_POST
def tutorial_start(request: HttpRequest) -> HttpResponse:
    """Start the lesson against one computer player and open its table.

    A child with a game still open goes back to it, unless it is a lesson and they asked to
    start again ("again"): that lesson ends first (their own practice game, as practice_stop).
    """
    student = selectors.student_of(request.user)
    if student is None:
        return redirect("games:tablet_signin")
    existing = selectors.open_game_for_student(student=student)
    if existing is not None:
        if not (tutorial.is_tutorial(existing) and request.POST.get("again")):
            if not tutorial.is_tutorial(existing):
                messages.info(request, _("Finish your game first."))
            return redirect("games:table", game_id=existing.pk)
        try:
            services.game_end(game=existing, by=request.user)
        except services.GameError:
            pass  # it ended meanwhile: start the new one all the same
    try:
        game = tutorial.tutorial_create(student=student, by=request.user)
    except services.GameError as exc:
        messages.error(request, exc.message)
        return redirect("games:student_home")
    return redirect("games:table", game_id=game.pk)
