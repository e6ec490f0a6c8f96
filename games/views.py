"""The students' pages: their home, practice games, and the live game table (HTMX polling)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games import board as boards
from games import permissions as game_permissions
from games import push, selectors, services, table_cache
from games.forms import MoveRefused, PracticeForm, parse_move, seen_version
from games.polling import poll_token, poll_unchanged
from games.wording import events_sentences, refusal_message

from .models import Game, Move


def _student_or_redirect(request: HttpRequest):
    student = selectors.student_of(request.user)
    if student is None:
        return None, redirect("games:tablet_signin")
    return student, None


@require_GET
def student_home(request: HttpRequest) -> HttpResponse:
    """Their running game (one tap to rejoin), a practice game, their recent results."""
    student, response = _student_or_redirect(request)
    if response:
        return response
    ctx = {
        "student": student,
        "open_game": selectors.open_game_for_student(student=student),
        "results": selectors.recent_results(student=student),
        "form": PracticeForm(),
    }
    template = "games/student_home.html#current" if request.htmx else "games/student_home.html"
    return render(request, template, ctx)


@require_POST
def practice_start(request: HttpRequest) -> HttpResponse:
    """A practice game against computer players at the student's own level, started at once."""
    student, response = _student_or_redirect(request)
    if response:
        return response
    existing = selectors.open_game_for_student(student=student)
    if existing is not None:
        messages.info(request, _("Finish your game first."))
        return redirect("games:table", game_id=existing.pk)
    form = PracticeForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose how many computer players and how strong."))
        return redirect("games:student_home")
    try:
        # Dealt from the child's own mistakes when one is due again (games.practice).
        game, _deal = services.practice_create(
            student=student,
            bots=int(form.cleaned_data["computers"]),
            strength=form.cleaned_data["strength"],
            created_by=request.user,
        )
        services.game_start(game=game, by=request.user)
    except services.GameError as exc:
        messages.error(request, exc.message)
        return redirect("games:student_home")
    return redirect("games:table", game_id=game.pk)


@require_POST
def practice_stop(request: HttpRequest, game_id: int) -> HttpResponse:
    """A student may stop their own practice game (never a class game)."""
    game, seat = game_permissions.game_for_seat(user=request.user, game_id=game_id)
    if game.kind != Game.Kind.PRACTICE:
        raise Http404("only practice games can be stopped by a student")
    try:
        services.game_end(game=game, by=request.user)
    except services.GameError as exc:
        messages.info(request, exc.message)
    return redirect("games:student_home")


def _since(request: HttpRequest) -> int | None:
    try:
        return int(request.GET.get("v", ""))
    except ValueError:
        return None


@require_GET
def table(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game table: the whole page, or for HTMX the board; 204 when a poll has nothing new.

    Writes nothing itself: the one service call (table_visit) stamps the tablet's presence,
    starts a first turn's clock that waited for it (R4.9), and applies a due move no worker
    has played (services.due_moves_apply), so the table moves on with Redis down.
    """
    if (
        request.htmx
        and "v" in request.GET
        and not getattr(request, "kavet_poll_checked", False)
        and poll_unchanged(request, game_id)
    ):
        return HttpResponse(status=204)
    game, seat, seats = game_permissions.table_for_seat(user=request.user, game_id=game_id)
    read = (game.version, game.status)
    game = services.table_visit(game=game, seat=seat)
    since = _since(request) if request.htmx else None

    def current_seats():
        # The seats as read, unless a due move was applied meanwhile (scores, places).
        return seats if (game.version, game.status) == read else None

    def context() -> dict:
        ctx = selectors.table_context(game=game, seat=seat, since=since, seats=current_seats())
        ctx["poll_token"] = poll_token(game, seat.position, request.user.pk)
        return ctx

    if request.htmx:
        # The board a push made this tablet ask for: the table's board rendered once per
        # version for all its seats, with this seat's own parts (games.table_cache).
        return _board(request, game, seat, since, current_seats(), build=context)
    return render(request, "games/table.html", context())


@require_POST
def table_move(request: HttpRequest, game_id: int) -> HttpResponse:
    """A move from a tablet, posted with the version the player saw (R5.1: first call wins).

    The post is read at the boundary (games.forms.parse_move): bounded in size and depth, typed.
    One that can't be a move answers 422 with the engine's refusal on the table; nothing changes.

    The move's push is held until its answer is made (games.push.held): it then carries the
    table's new board with every other seat's own parts, and no other tablet fetches it.
    """
    with push.held():
        return _table_move(request, game_id)


def _table_move(request: HttpRequest, game_id: int) -> HttpResponse:
    seen = seen_version(request.POST)
    status = 200
    try:
        move = parse_move(request.POST)
    except MoveRefused as refused:
        move, code, status = None, refused.code, 422
    else:
        code = "empty" if move.pop("empty", False) else None
    if move is None or code is not None:
        # Nothing to apply: the table's one prepared read (as the board fetch), for its board.
        game, seat, _seats = game_permissions.table_for_seat(user=request.user, game_id=game_id)
        outcome = services.MoveOutcome(
            applied=False, game=game, refusal_code=code, message=refusal_message(code)
        )
    else:
        # The player's seat is checked in the move's one locked read (own_seats' rule): a
        # game they do not sit at is not read, not locked, and answers 404 as a fetch does.
        try:
            outcome = services.move_submit(
                game_id=game_id,
                move=move,
                seen_version=seen,
                by=request.user,
                player=game_permissions.player(request.user),
            )
        except Game.DoesNotExist:
            raise Http404("no such game") from None
        seat = outcome.seat
    game = outcome.game
    if not request.htmx and status == 200:
        if outcome.message:
            messages.warning(request, outcome.message)
        return redirect("games:table", game_id=game.pk)
    if request.htmx and outcome.applied and not outcome.message:
        # The mover's new board: the table's board of the new version, sent with the move's
        # push to the other seats with their own parts (games.table_cache.push_board).
        return _board(
            request,
            game,
            seat,
            seen,
            outcome.seats,
            build=lambda: _move_context(game, seat, seen, outcome, request),
            applied=True,
            others=lambda: [
                (other, selectors.seat_context(game=game, seat=other, seats=outcome.seats))
                for other in outcome.seats  # (called only when they were read: _board)
                if other.pk != seat.pk and not other.bot
            ],
        )
    ctx = _move_context(game, seat, seen if outcome.applied else None, outcome, request)
    if request.htmx:
        return HttpResponse(boards.render_board(ctx, request), status=status)
    return render(request, "games/table.html", ctx, status=status)


def _board(
    request: HttpRequest, game: Game, seat, since, seats, *, build, applied=False, others=None
):
    """One seat's board from the table's board of this version (games.table_cache): the part
    every seat sees alike made once for all of them, this seat's own parts beside it."""
    return table_cache.board_response(
        request,
        game=game,
        seat=seat,
        since=since,
        token=poll_token(game, seat.position, request.user.pk),
        build=build,
        shared=lambda: selectors.table_context(game=game, seat=None, seats=seats),
        own=lambda: selectors.seat_context(game=game, seat=seat, seats=seats),
        applied=applied,
        others=others if seats is not None else None,
    )


def _move_context(game: Game, seat, since: int | None, outcome, request: HttpRequest) -> dict:
    ctx = selectors.table_context(game=game, seat=seat, since=since, seats=outcome.seats)
    ctx.update(
        flash=outcome.message,
        applied=outcome.applied,
        refused=not outcome.applied,
        poll_token=poll_token(game, seat.position, request.user.pk),
    )
    return ctx


@require_GET
def table_moves(request: HttpRequest, game_id: int) -> HttpResponse:
    """What happened so far at this table, in words (the log a child can read back)."""
    game, seat = game_permissions.game_for_seat(user=request.user, game_id=game_id)
    players = selectors.player_names(game)
    log = [
        (m.number, events_sentences(m.events, players))
        for m in Move.objects.filter(game=game).order_by("-number")[:40]
    ]
    return render(request, "games/table_log.html", {"game": game, "log": log})
