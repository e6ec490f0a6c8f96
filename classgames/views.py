"""The teacher's class-game pages: set up the tables, follow them live, act on them, replay.

Views parse the request, call one service or selector and render; every object is fetched
through classrooms.permissions, so a foreign id is a 404 like a missing one.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from classrooms import permissions
from classrooms.forms import ClassGameSettingsForm, tables_from_post
from classrooms.grouping import (
    BOT_STRENGTHS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PlannedTable,
    rules_summary,
    table_rules,
    tables_check,
    tables_propose,
)
from classrooms.selectors import class_students, signed_in_ids
from games import permissions as game_permissions
from games.selectors import name_seats
from games.services import game_tick, page_due
from games.signals import class_game_shown

from . import live, reads, selectors, services
from . import permissions as class_game_permissions
from .models import ClassSession, session_id_of


def _errors(exc: ValidationError) -> list[str]:
    return list(exc.messages)


def _plan_rules(tables, settings_form) -> None:
    """Attach to each planned table the rules it would play by, and why (R2.3)."""
    caps = settings_form.cleaned_data if settings_form.is_bound and settings_form.is_valid() else {}
    for table in tables:
        table.rules = (
            table_rules(
                table.students, cap_range=caps.get("cap_range"), cap_tier=caps.get("cap_tier")
            )
            if table.students
            else None
        )


@permissions.staff_required
def class_game_setup(request: HttpRequest, pk: int) -> HttpResponse:
    """Who is present → proposed tables by level → adjust → start every table at once."""
    classroom = permissions.classroom_get(request.user, pk)
    students = list(class_students(request.user, classroom).order_by("name"))
    action = request.POST.get("action", "") if request.method == "POST" else ""
    settings_form = ClassGameSettingsForm(request.POST if request.method == "POST" else None)
    present_ids = {str(s.pk) for s in students}
    if request.method == "POST":
        present_ids = set(request.POST.getlist("present")) & present_ids
    else:  # the last attendance remembered ("Play now" and this page share it)
        absent = selectors.attendance_absent(classroom)
        present_ids = {pk for pk in present_ids if int(pk) not in absent}
    present = [s for s in students if str(s.pk) in present_ids]
    tables: list[PlannedTable] = []
    doubles: dict = {}
    errors: list[str] = []
    if action == "propose":
        tables = [
            PlannedTable(number=i, students=group, bots=1 if len(group) == 1 else 0)
            for i, group in enumerate(tables_propose(present), start=1)
        ]
        if not present:
            errors.append(_("Tick the students who are present."))
    elif action in ("update", "start"):
        tables, doubles = tables_from_post(request.POST, present)
        errors = tables_check(tables, doubles=doubles)
    if tables:
        _plan_rules(tables, settings_form)
    if action == "start" and not errors:
        if not settings_form.is_valid():
            errors.append(_("Check the game settings."))
        else:
            d = settings_form.cleaned_data
            try:
                session = services.class_session_start(
                    classroom=classroom,
                    tables=tables,
                    settings=settings_form.settings(),
                    by=request.user,
                    starter=d["starter"],
                    cap_range=d["cap_range"],
                    cap_tier=d["cap_tier"],
                )
            except ValidationError as exc:
                errors = _errors(exc)
            else:
                services.attendance_remember(classroom=classroom, present=present)
                messages.success(
                    request,
                    ngettext(
                        "The game has started at %(count)s table.",
                        "The games have started at %(count)s tables.",
                        len(tables),
                    )
                    % {"count": len([t for t in tables if t.students])},
                )
                if request.htmx:
                    response = HttpResponse(status=204)
                    response["HX-Redirect"] = reverse("classrooms:session_live", args=[session.pk])
                    return response
                return redirect("classrooms:session_live", pk=session.pk)
    placed = {s.pk for t in tables for s in t.students}
    n_slots = max([t.number for t in tables] + [len(tables)]) + 1 if tables else 1
    ctx = {
        "classroom": classroom,
        "students": students,
        "present": present,
        "present_ids": present_ids,
        "signed_in": signed_in_ids(request.user, classroom, now=timezone.now()),
        "settings_form": settings_form,
        "tables": tables,
        "not_playing": [s for s in present if s.pk not in placed] if tables else [],
        "slots": list(range(1, n_slots + 1)),
        "errors": errors,
        "planning": bool(tables),
        # One table: at least one student, so at most MAX_PLAYERS - 1 computer players.
        "bot_counts": list(range(0, MAX_PLAYERS)),
        "strengths": BOT_STRENGTHS,
        "tab": "play",
        "min_players": MIN_PLAYERS,
        "max_players": MAX_PLAYERS,
        "running": [
            s for s in selectors.class_sessions_of(classroom) if s.status in ("running", "paused")
        ][:3],
    }
    template = "classrooms/class_game_setup.html"
    return render(request, template + "#plan" if request.htmx else template, ctx)


@permissions.staff_required
@require_POST
def attendance_mark(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    """One tap on a child's name in the class page's "Play now" block: present or absent."""
    classroom = permissions.classroom_get(request.user, pk)
    student = permissions.student_get(request.user, classroom=classroom, pk=sid)
    present = request.POST.get("present")
    if present not in ("0", "1"):
        messages.error(request, _("Something went wrong. Tap the name again."))
    else:
        services.attendance_mark(classroom=classroom, student=student, present=present == "1")
    if request.htmx:
        return _play_now_block(request, classroom)
    return redirect(reverse("classrooms:classroom_detail", args=[classroom.pk]) + "#play-now")


def _play_now_block(request: HttpRequest, classroom) -> HttpResponse:
    students = list(class_students(request.user, classroom).order_by("name"))
    ctx = {
        "classroom": classroom,
        "play_now": selectors.play_now_context(classroom, students),
    }
    return render(request, "classrooms/_play_now.html", ctx)


@permissions.staff_required
@require_POST
def play_now(request: HttpRequest, pk: int) -> HttpResponse:
    """ "Play now": a class game with the children marked present and the class's usual
    settings, straight to the class board, where tablets join by the QR code."""
    classroom = permissions.classroom_get(request.user, pk)
    try:
        session = services.class_session_play_now(classroom=classroom, by=request.user)
    except ValidationError as exc:
        going = selectors.class_session_going(classroom)
        if going is not None:
            # A second tap (or another teacher's): the class game already going on, not an error.
            messages.info(request, _("A class game is going on."))
            return redirect("games:board_session", session_id=going.pk)
        for message in exc.messages:
            messages.error(request, message)
        return redirect(reverse("classrooms:classroom_detail", args=[classroom.pk]) + "#play-now")
    n = session.games.count()
    messages.success(
        request,
        ngettext(
            "The game has started at %(count)s table.",
            "The games have started at %(count)s tables.",
            n,
        )
        % {"count": n},
    )
    return redirect("games:board_session", session_id=session.pk)


@permissions.staff_required
def session_live(request: HttpRequest, pk: int) -> HttpResponse:
    """Every table of a class game on one screen; HTMX polls it and gets 204 when nothing moved."""
    session = class_game_permissions.session_get(request.user, pk)
    now = timezone.now()
    # The tables' rows as the marks below read them (the pulse's columns among them): read
    # again below only if a table moved meanwhile.
    games = selectors.live_marked_games(session)
    # The policy of every page showing a running game (games.services.due_moves_apply): a
    # due time limit or computer player that no worker has played is applied here, one service
    # call per due table (found from the rows already read, no query), so a table nobody's
    # tablet watches still moves on without a worker (the embedded default, or Redis down).
    for game_id, _version, status, deadline, bot_due in reads.pulse_of(games):
        if page_due(status=status, timer_deadline=deadline, bot_due_at=bot_due, now=now):
            game_tick(game_id=game_id, now=now)
            games = None
    # The demo's class game plays on while someone looks (demo: games.signals); a receiver
    # answers how many moves it applied (then the rows are read again for the marks).
    played = class_game_shown.send(sender=ClassSession, session=session, now=now)
    if any(applied for _receiver, applied in played):
        games = None
    # What the page shows, in a word (selectors.live_shown): the poll sends the word of the page
    # as it stands, one-table fetches included (static/js/kavet.js), and gets a 204 while the
    # view would show the same, or only the tables it shows out of date (a flag's minute that
    # turned, a move whose one-table fetch was missed), each swapped in its place (htmx's
    # out-of-band swap) with the "updated" time, rather than every table again.
    marks = selectors.live_table_marks(session, now, games)
    fingerprint = selectors.live_shown(session.status, [mark for *_row, mark in marks])
    shown = request.GET.get("v", "") if request.htmx else ""
    if shown == fingerprint:
        return HttpResponse(status=204)
    changed = selectors.live_changed(shown, session.status, marks) if shown else None
    if changed:
        ctx = {
            "session": session,
            "tables": selectors.live_tables(session, now, only=changed),
            "strengths": BOT_STRENGTHS,
            "now": now,
        }
        response = HttpResponse(live.render_changed(ctx, request))
        response["HX-Reswap"] = "none"  # the page keeps #live; the sections come out of band
        return response
    tables = selectors.live_tables(session, now)
    if tables and all(t["finished"] for t in tables):
        # Shown as over, not saved: a GET only reads. The games service marks the class game
        # finished when its last table ends (classgames.services.session_after_game_change).
        session.status = ClassSession.Status.FINISHED
    ctx = {
        "session": session,
        "classroom": session.classroom,
        "tables": tables,
        "fingerprint": fingerprint,
        "strengths": BOT_STRENGTHS,
        "now": now,
        "tab": "play",
        "live": session.status != ClassSession.Status.FINISHED,
    }
    template = "classrooms/session_live.html"
    return render(request, template + "#live" if request.htmx else template, ctx)


@permissions.staff_required
def session_live_table(request: HttpRequest, pk: int, gid: int) -> HttpResponse:
    """One table of the live view, as the page asks for it when the push channel says that
    table moved (static/js/kavet.js): a sixth of the whole view's work at a class game of six
    tables (issue 38: the teachers' pages re-rendered every table on every move of the class).
    The whole view still comes with the page's timer poll (its status line, the class game's
    controls)."""
    session = class_game_permissions.session_get(request.user, pk)
    now = timezone.now()
    pulse = selectors.session_pulse(session, only=[gid])
    if not pulse:
        raise Http404("not a table of this class game")
    # The live view's policy for a due time limit or computer player (session_live).
    _game_id, _version, status, deadline, bot_due = pulse[0]
    if page_due(status=status, timer_deadline=deadline, bot_due_at=bot_due, now=now):
        game_tick(game_id=gid, now=now)
    (table,) = selectors.live_tables(session, now, only=[gid])
    ctx = {"session": session, "t": table, "strengths": BOT_STRENGTHS}
    return HttpResponse(live.render_table(ctx, request))


@permissions.staff_required
@require_POST
def session_control(request: HttpRequest, pk: int) -> HttpResponse:
    session = class_game_permissions.session_get(request.user, pk)
    action = request.POST.get("action")
    if action == "pause":
        n = services.class_session_pause(session=session, by=request.user)
        messages.success(
            request,
            ngettext("%(count)s table paused.", "%(count)s tables paused.", n) % {"count": n},
        )
    elif action == "resume":
        n = services.class_session_resume(session=session, by=request.user)
        messages.success(
            request,
            ngettext("%(count)s table resumed.", "%(count)s tables resumed.", n) % {"count": n},
        )
    elif action == "end":
        services.class_session_end(session=session, by=request.user)
        messages.success(request, _("The class game is over. Scores are in the history."))
    else:
        messages.error(request, _("Unknown action."))
    return redirect("classrooms:session_live", pk=session.pk)


@permissions.staff_required
@require_POST
def seat_replace(request: HttpRequest, pk: int, gid: int) -> HttpResponse:
    """Replace an absent student by a computer player in the middle of a game (R8)."""
    session = class_game_permissions.session_get(request.user, pk)
    game = game_permissions.game_get(request.user, gid)
    if session_id_of(game) != session.pk:
        raise Http404("no such table in this class game")
    try:
        position = int(request.POST.get("position", ""))
    except ValueError:
        position = -1
    seat = game.seats.filter(position=position).first()
    if seat is None:
        messages.error(request, _("There is no such seat at this table."))
    elif seat.bot:
        messages.error(request, _("A computer player already plays this seat."))
    else:
        try:
            services.class_seat_replace(
                game=game,
                position=position,
                strength=request.POST.get("strength", ""),
                by=request.user,
            )
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(
                request,
                _("A computer player now plays for %(name)s at %(table)s.")
                % {"name": seat.display_name, "table": str(game)},
            )
    return redirect("classrooms:session_live", pk=session.pk)


# --- history and replay ----------------------------------------------------------------------


@permissions.staff_required
def history(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = permissions.classroom_get(request.user, pk)
    page = Paginator(selectors.finished_games(classroom), 30).get_page(request.GET.get("page"))
    rows = [
        (
            game,
            rules_summary(game.config["rules"]["max_number"], game.config["rules"]["tier"])
            if (game.config or {}).get("rules")
            else "",
        )
        for game in page.object_list
    ]
    for game, _summary in rows:
        name_seats(game.seats.all())  # "Computer 1"... in the reader's language, no query each
    return render(
        request,
        "classrooms/history.html",
        {"classroom": classroom, "page": page, "rows": rows, "tab": "history"},
    )


@permissions.staff_required
def game_replay(request: HttpRequest, pk: int) -> HttpResponse:
    game = game_permissions.game_get(request.user, pk)
    replay = selectors.game_replay(game, players=selectors.replay_names(game))
    return render(
        request,
        "classrooms/replay.html",
        {
            "game": game,
            "classroom": game.classroom,
            "replay": replay,
            "at_move": selectors.replay_at_move(request),
            "tab": "history",
        },
    )
