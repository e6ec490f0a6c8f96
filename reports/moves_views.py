"""The moves behind a number: a report's figure opens the moves it counts, and the teacher's
live skill grid (children × skills during a class game) opens the moves behind each cell.

Every object comes through classrooms.permissions: a foreign id is a 404 like a missing one.
"""

from __future__ import annotations

from datetime import date

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone

from classgames import permissions as class_game_permissions
from classgames import selectors as class_game_selectors
from classgames.models import ClassSession
from classrooms import permissions
from classrooms.models import Student
from games import scheduling
from games.models import Game
from games.services import due_moves_apply

from . import moves, selectors, services
from .progress import SKILL_LABELS, SKILLS, Figure, figure_parse, figure_title, week_bounds

PER_PAGE = 100


def _week(request: HttpRequest) -> date | None:
    try:
        return date.fromisoformat(request.GET.get("week", ""))
    except ValueError:
        return None


def _report_week(request: HttpRequest, student: Student) -> date:
    """The report week a figure belongs to (?week=, a Monday), else the latest report's."""
    week = _week(request)
    if week is None and not request.GET.get("week"):
        report = services.report_read(student=student)
        week = report.week_start if report is not None else None
    if week is None or week.weekday() != 0:
        raise Http404("no such report week")
    return week


def _figure(request: HttpRequest):
    figure = figure_parse(request.GET.get("f", ""))
    if figure is None:
        raise Http404("no such figure")
    return figure


def _figure_page(
    request: HttpRequest,
    *,
    plays,
    school,
    week_start: date,
    viewer: str,
    back_url: str,
    back_label: str,
    child: Student | None = None,
    show_student: bool = False,
) -> HttpResponse:
    figure = _figure(request)
    start, end = week_bounds(week_start, selectors.school_tz(school))
    rows = moves.figure_moves(plays=plays, figure=figure, start=start, end=end)
    window = None
    if figure.scope == "recent":  # "the last 10 tries": how many tries the window holds
        tries = Figure("recent", f"skill.{figure.skill}.n")
        window = (
            len(rows)
            if tries == figure
            else len(moves.figure_moves(plays=plays, figure=tries, start=start, end=end))
        )
    page = Paginator(rows, PER_PAGE).get_page(request.GET.get("page"))
    lines = moves.move_lines(list(page.object_list), viewer=viewer, child=child)
    return render(
        request,
        "reports/moves.html",
        {
            "title": figure_title(figure, window),
            "figure": str(figure),
            "week_start": week_start,
            "count": page.paginator.count,
            "page": page,
            "lines": lines,
            "back_url": back_url,
            "back_label": back_label,
            "show_student": show_student,
            "query": f"f={figure}&week={week_start.isoformat()}",
        },
    )


def _student_figure_page(
    request: HttpRequest, student: Student, *, report: str, child: Student | None = None
) -> HttpResponse:
    """A figure of one student's report, opened: their moves of the report's week, with a way
    back to the report (`report`, a URL name). Given `child`, the moves are told to a parent
    (the other players unnamed)."""
    week_start = _report_week(request, student)
    return _figure_page(
        request,
        plays=moves.plays_readable(request.user).filter(student=student),
        school=student.classroom.school,
        week_start=week_start,
        viewer="teacher" if child is None else "parent",
        child=child,
        back_url=reverse(report, args=[student.pk]) + f"?week={week_start.isoformat()}",
        back_label=student.name,
    )


@permissions.staff_required
def student_moves(request: HttpRequest, student_id: int) -> HttpResponse:
    """A figure of a student's report (the teacher's page), opened: the moves it counts."""
    student = permissions.staff_student_get(request.user, student_id)
    return _student_figure_page(request, student, report="reports:student")


@login_required
def child_moves(request: HttpRequest, student_id: int) -> HttpResponse:
    """A figure of the parent's report, opened: this child's moves only, the others unnamed."""
    child = permissions.child_get(request.user, student_id)
    staff = permissions.is_staff(request.user)
    return _student_figure_page(
        request, child, report="reports:child", child=None if staff else child
    )


@permissions.staff_required
def class_moves(request: HttpRequest, classroom_id: int) -> HttpResponse:
    """A figure of the class report (its most frequent mistakes), opened: the class's moves."""
    classroom = permissions.classroom_get(request.user, classroom_id)
    week_start = _week(request)
    if week_start is None or week_start.weekday() != 0:
        raise Http404("no such week")
    return _figure_page(
        request,
        plays=moves.class_plays(request.user, classroom),
        school=classroom.school,
        week_start=week_start,
        viewer="teacher",
        back_url=reverse("reports:class", args=[classroom.pk]) + f"?week={week_start.isoformat()}",
        back_label=classroom.name,
        show_student=True,  # the class's moves: whose each one is
    )


# --- the live skill grid -------------------------------------------------------------------


@permissions.staff_required
def live_skills(request: HttpRequest, session_id: int) -> HttpResponse:
    """Children × skills of a class game, filling in as moves are made. Like the live view it
    hears the push channel and polls with the tables' fingerprint: 204 when nothing moved."""
    session = class_game_permissions.session_get(request.user, session_id)
    now = timezone.now()
    if scheduling.runs_in_process():  # the live view's policy (classgames.views.session_live)
        for game in session.games.filter(status=Game.Status.RUNNING):
            due_moves_apply(game=game, now=now)
    pulse = class_game_selectors.session_pulse(session)
    fingerprint = class_game_selectors.session_fingerprint(pulse, now)
    if request.htmx and request.GET.get("v") == fingerprint:
        return HttpResponse(status=204)
    over = bool(pulse) and all(status in moves.DONE for _pk, _v, status, *_r in pulse)
    ctx = {
        "session": session,
        "classroom": session.classroom,
        "grid": moves.live_grid(session),
        "fingerprint": fingerprint,
        "now": now,
        "live": session.status != ClassSession.Status.FINISHED and not over,
        "tab": "play",
    }
    template = "reports/live_skills.html"
    return render(request, template + "#grid" if request.htmx else template, ctx)


@permissions.staff_required
def live_cell(request: HttpRequest, session_id: int, student_id: int, skill: str) -> HttpResponse:
    """The moves behind one cell of the live grid: one child, one skill, in this class game."""
    session = class_game_permissions.session_get(request.user, session_id)
    student = (
        permissions.manageable(request.user, Student)
        .filter(pk=student_id, seats__game__class_table__session=session)
        .first()
    )
    if student is None or skill not in SKILLS:
        raise Http404("no such cell")
    lines = moves.cell_moves(session=session, student=student, skill=skill)
    ctx = {
        "title": f"{student.name} · {SKILL_LABELS[skill]}",
        "count": len(lines),
        "lines": lines,
        "back_url": reverse("reports:live_skills", args=[session.pk]),
        "back_label": "",
        "session": session,
        "show_student": False,
        "cell": True,
    }
    template = "reports/moves.html"
    return render(request, template + "#moves" if request.htmx else template, ctx)
