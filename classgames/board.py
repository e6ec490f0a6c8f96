"""The class board: a table on the classroom's projector (read-only, live), the tables of a class
game to choose from, and the mistake of the day (R5.6), anonymised.

Every page is for the teachers of the class: a foreign or missing id is a 404, and anyone not
signed in goes to the sign-in page. Nothing here writes a game but the due time limits and
computer players that no worker has played (see _due_moves_applied); the class game's
board also tells games.signals.class_game_shown, so the demo's game plays on (classgames).
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from classgames import permissions as class_game_permissions
from classgames.models import session_id_of
from classrooms import permissions
from classrooms.models import Classroom
from games import permissions as game_permissions
from games import services
from games.models import Game
from games.signals import class_game_shown
from games.signin import join_key

from . import board_selectors as selectors


def _due_moves_applied(game: Game) -> Game:
    """A board has no seat; it follows the policy of every page showing a running game
    (services.due_moves_apply), so a board left alone on a table of computer players still
    moves on without a worker (the embedded default, or Redis down)."""
    if services.due_moves_apply(game=game):
        game.refresh_from_db()
    return game


def _unchanged(request: HttpRequest, game) -> bool:
    """A board's poll that already shows this version and status: nothing to send (R1.5-safe)."""
    return (
        request.htmx
        and request.GET.get("v") == str(game.version)
        and request.GET.get("s") == game.status
    )


@login_required
@require_GET
def board_table(request: HttpRequest, game_id: int) -> HttpResponse:
    """One table, big enough to read from the back of the room; HTMX asks for the board again
    when the push channel tells of a change at this table (or every few seconds without it)."""
    game = _due_moves_applied(game_permissions.game_get(request.user, game_id))  # else 404
    if _unchanged(request, game):
        return HttpResponse(status=204)
    ctx = selectors.board_table_context(game=game)
    template = "games/board_table.html"
    return render(request, template + "#board" if request.htmx else template, ctx)


def join_url(request: HttpRequest, classroom) -> str:
    """The address a tablet opens to join the class: the sign-in with the class code filled in.

    With the code's key (games.signin.join_key), so the join is never held up by a flood of
    wrong codes from the school's address.
    """
    query = urlencode({"code": classroom.code, "k": join_key(classroom.code)})
    return request.build_absolute_uri(reverse("games:tablet_signin")) + "?" + query


@permissions.staff_required
@require_GET
def board_home(request: HttpRequest) -> HttpResponse:
    """/board/: the class boards of the teacher's classes (straight to it when there is one)."""
    classes = list(
        permissions.manageable(request.user, Classroom)
        .filter(archived_at__isnull=True)
        .order_by("name")
    )
    if len(classes) == 1:
        return redirect("games:board_class", classroom_id=classes[0].pk)
    return render(request, "games/board_home.html", {"classes": classes})


@login_required
@require_GET
def board_class(request: HttpRequest, classroom_id: int) -> HttpResponse:
    """A class's board: the class game going on, or how tablets join and the day's mistakes."""
    classroom = permissions.classroom_get(request.user, classroom_id)
    session_id = selectors.running_session_id(classroom)
    if session_id is not None:
        return redirect("games:board_session", session_id=session_id)
    ctx = {"classroom": classroom, "join_url": join_url(request, classroom)}
    return render(request, "games/board_class.html", ctx)


@login_required
@require_GET
def board_join_qr(request: HttpRequest, classroom_id: int) -> HttpResponse:
    """The QR code of the class's join address, as an SVG image (an <img>: no inline markup)."""
    classroom = permissions.classroom_get(request.user, classroom_id)
    response = HttpResponse(
        selectors.join_qr_svg(join_url(request, classroom)), content_type="image/svg+xml"
    )
    response["Cache-Control"] = "private, max-age=3600"
    return response


@login_required
@require_GET
def board_session(request: HttpRequest, session_id: int) -> HttpResponse:
    """The tables of a class game on the projector: the class code and its QR code for the
    tablets to join, and each child's name lit up once they sit at their table. HTMX asks
    again on the push channel's news (or every few seconds); 204 while nothing changed."""
    session = class_game_permissions.session_get(request.user, session_id)
    class_game_shown.send(sender=Game, session=session, now=None)
    tables = selectors.board_session_tables(session)
    # The policy of every page showing a running game (services.due_moves_apply), from the
    # rows just read (their columns, not each game's whole state read again at every poll:
    # issue 38): a due time limit or computer player no worker has played is applied here.
    now = timezone.now()
    if any([services.due_moves_apply(game=t["game"], now=now) for t in tables]):
        tables = selectors.board_session_tables(session)
    fingerprint = selectors.board_session_fingerprint(tables)
    if request.htmx and request.GET.get("v") == fingerprint:
        return HttpResponse(status=204)
    ctx = {
        "session": session,
        "classroom": session.classroom,
        "tables": tables,
        "fingerprint": fingerprint,
        "join_url": join_url(request, session.classroom),
        "live": session.status != "finished",
    }
    template = "games/board_session.html"
    return render(request, template + "#join" if request.htmx else template, ctx)


@login_required
@require_GET
def board_session_mistakes(request: HttpRequest, session_id: int) -> HttpResponse:
    """The wrong and missed operations of one class game's tables, without a name."""
    session = class_game_permissions.session_get(request.user, session_id)
    mistakes = selectors.session_mistakes(request.user, session)
    return _mistakes_page(request, session=session, classroom=session.classroom, mistakes=mistakes)


@login_required
@require_GET
def board_class_mistakes(request: HttpRequest, classroom_id: int) -> HttpResponse:
    """The wrong and missed operations of every class game the class played today."""
    classroom = permissions.classroom_get(request.user, classroom_id)
    mistakes = selectors.classroom_mistakes_today(request.user, classroom)
    return _mistakes_page(request, session=None, classroom=classroom, mistakes=mistakes)


def _mistakes_page(request: HttpRequest, *, session, classroom, mistakes) -> HttpResponse:
    """The board's list of mistakes (of one class game, or of the class's day when no session)."""
    ctx = {"session": session, "classroom": classroom, "mistakes": mistakes}
    return render(request, "games/board_mistakes.html", ctx)


@login_required
@require_GET
def board_mistake(request: HttpRequest, play_id: int) -> HttpResponse:
    """One mistake on the board: the cards as they lay, "Find an operation!", and with
    ?reveal=1 the operation there was (a plain link: no script needed)."""
    play = selectors.mistake_play_get(request.user, play_id)
    reveal = request.GET.get("reveal") == "1"
    ctx = {
        "mistake": selectors.mistake_moment(play, reveal=reveal),
        "reveal": reveal,
        "game": play.game,
        "session_id": session_id_of(play.game),
    }
    return render(request, "games/board_mistake.html", ctx)
