"""The teachers' pages: classes, students, levels, sign-in cards, class games, live view, replay.

Views parse the request, call one service or selector and render; every object is fetched
through the permission selectors, so a foreign id is a 404 like a missing one.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from games.selectors import name_seats
from games.services import game_tick
from games.signin import signin_locks, signin_unlock

from . import selectors, services
from .forms import (
    ClassGameSettingsForm,
    ClassroomCopyForm,
    ClassroomForm,
    CodeLookupForm,
    InviteAcceptForm,
    InviteForm,
    LevelsBulkForm,
    StudentForm,
    StudentMoveForm,
    StudentsPasteForm,
    tables_from_post,
)
from .grouping import (
    BOT_STRENGTHS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PlannedTable,
    rules_summary,
    table_rules,
    tables_check,
    tables_propose,
)
from .models import NumberRange, Tier, User
from .pictures import PICTURES, pictures_of

View = Callable[..., HttpResponse]


def staff_required(view: View) -> View:
    """Signed in as a teacher or a school admin; anyone else is turned away."""

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if getattr(request.user, "role", None) not in selectors.STAFF_ROLES:
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return wrapper


def admin_required(view: View) -> View:
    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if getattr(request.user, "role", None) != User.Role.SCHOOL_ADMIN:
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return wrapper


def _errors(exc: ValidationError) -> list[str]:
    return list(exc.messages)


def _form_errors(form, exc: ValidationError) -> None:
    for message in exc.messages:
        form.add_error(None, message)


# --- home and classes ------------------------------------------------------------------------


@staff_required
def teacher_home(request: HttpRequest) -> HttpResponse:
    ctx = selectors.teacher_home(request.user)
    return render(request, "classrooms/teacher_home.html", ctx)


@staff_required
def classroom_create(request: HttpRequest) -> HttpResponse:
    user = request.user
    is_admin = user.role == User.Role.SCHOOL_ADMIN
    teachers_qs = selectors.teachers_of_school(user) if is_admin else None
    form = ClassroomForm(request.POST or None, teachers_qs=teachers_qs,
                         initial={"school_year": services.school_year_current()})
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            classroom = services.classroom_create(
                school=user.school, name=d["name"], school_year=d["school_year"],
                teachers=d.get("teachers") or [], by=user,
                student_idle_minutes=d["student_idle_minutes"])
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            messages.success(request, _("Class “%(name)s” created. Its tablet code is %(code)s.")
                             % {"name": classroom.name, "code": classroom.code})
            return redirect("classrooms:classroom_detail", pk=classroom.pk)
    return render(request, "classrooms/classroom_form.html", {"form": form, "creating": True})


@staff_required
def classroom_detail(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = selectors.classroom_get(request.user, pk)
    students = selectors.classroom_students(classroom)
    rows = [(s, pictures_of(s.picture_code)) for s in students]
    sessions = list(selectors.class_sessions_of(classroom)[:5])
    return render(request, "classrooms/classroom_detail.html", {
        "classroom": classroom, "rows": rows, "n_students": len(students), "sessions": sessions,
        "teachers": list(classroom.teachers.all()), "tab": "students",
    })


@staff_required
def classroom_edit(request: HttpRequest, pk: int) -> HttpResponse:
    user = request.user
    classroom = selectors.classroom_get(user, pk)
    is_admin = user.role == User.Role.SCHOOL_ADMIN
    teachers_qs = selectors.teachers_of_school(user) if is_admin else None
    initial = {"name": classroom.name, "student_idle_minutes": classroom.student_idle_minutes,
               "teachers": list(classroom.teachers.all()) if is_admin else None}
    form = ClassroomForm(request.POST or None, teachers_qs=teachers_qs, editing=True,
                         initial=initial)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            services.classroom_rename(
                classroom=classroom, name=d["name"], by=user,
                student_idle_minutes=d["student_idle_minutes"],
                teachers=d["teachers"] if is_admin else None)
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            messages.success(request, _("Class saved."))
            return redirect("classrooms:classroom_detail", pk=classroom.pk)
    return render(request, "classrooms/classroom_form.html",
                  {"form": form, "classroom": classroom, "creating": False})


@staff_required
@require_POST
def classroom_archive(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = selectors.classroom_get(request.user, pk)
    archive = request.POST.get("action") != "restore"
    services.classroom_archive(classroom=classroom, by=request.user, archived=archive)
    if archive:
        messages.success(request, _("Class “%(name)s” archived.") % {"name": classroom.name})
        return redirect("classrooms:teacher_home")
    messages.success(request, _("Class “%(name)s” is back in use.") % {"name": classroom.name})
    return redirect("classrooms:classroom_detail", pk=classroom.pk)


@staff_required
def classroom_copy(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = selectors.classroom_get(request.user, pk)
    students_qs = selectors.students_visible_to(request.user).filter(classroom=classroom)
    form = ClassroomCopyForm(request.POST or None, students_qs=students_qs, initial={
        "name": classroom.name, "school_year": services.school_year_next(classroom.school_year),
        "students": list(students_qs), "archive_old": True})
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            new = services.classroom_copy_to_next_year(
                classroom=classroom, by=request.user, name=d["name"],
                school_year=d["school_year"], students=d["students"],
                archive_old=d["archive_old"])
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            messages.success(request, _("Class “%(name)s” for %(year)s is ready, code %(code)s.")
                             % {"name": new.name, "year": new.school_year, "code": new.code})
            return redirect("classrooms:classroom_detail", pk=new.pk)
    return render(request, "classrooms/classroom_copy.html",
                  {"form": form, "classroom": classroom})


# --- students --------------------------------------------------------------------------------


@staff_required
def students_add(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = selectors.classroom_get(request.user, pk)
    form = StudentsPasteForm(request.POST or None)
    paste_errors: list[str] = []
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            added = services.students_bulk_add(
                classroom=classroom, text=d["names"], number_range=d["number_range"],
                tier=d["tier"], by=request.user)
        except ValidationError as exc:
            paste_errors = _errors(exc)
        else:
            messages.success(request, ngettext(
                "%(count)s student added.", "%(count)s students added.", len(added))
                % {"count": len(added)})
            return redirect("classrooms:classroom_detail", pk=classroom.pk)
    return render(request, "classrooms/students_add.html",
                  {"form": form, "classroom": classroom, "paste_errors": paste_errors})


@staff_required
def student_edit(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    classroom = selectors.classroom_get(request.user, pk)
    student = selectors.student_get(request.user, classroom=classroom, pk=sid)
    form = StudentForm(request.POST or None, initial={
        "name": student.name, "number_range": student.number_range, "tier": student.tier})
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            services.student_update(student=student, name=d["name"],
                                    number_range=d["number_range"], tier=d["tier"],
                                    by=request.user)
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            messages.success(request, _("%(name)s saved.") % {"name": d["name"]})
            return redirect("classrooms:classroom_detail", pk=classroom.pk)
    return render(request, "classrooms/student_edit.html", {
        "form": form, "classroom": classroom, "student": student,
        "pictures": pictures_of(student.picture_code),
        "history": selectors.level_history(student),
        "signin_locks": signin_locks(student),
    })


@staff_required
@require_POST
def student_signin_unlock(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    """One tap: the child may sign in again at once, after too many wrong pictures."""
    classroom = selectors.classroom_get(request.user, pk)
    student = selectors.student_get(request.user, classroom=classroom, pk=sid)
    signin_unlock(student)
    messages.success(request, _("%(name)s can sign in again.") % {"name": student.name})
    return redirect("classrooms:student_edit", pk=classroom.pk, sid=student.pk)


@staff_required
def student_move(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    classroom = selectors.classroom_get(request.user, pk)
    student = selectors.student_get(request.user, classroom=classroom, pk=sid)
    targets = selectors.classrooms_to_move_to(request.user, student=student)
    form = StudentMoveForm(request.POST or None, classrooms_qs=targets)
    if request.method == "POST" and form.is_valid():
        target = form.cleaned_data["to_classroom"]
        old_code = student.picture_code
        try:
            moved = services.student_move(student=student, to_classroom=target, by=request.user)
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            text = _("%(name)s moved to %(class)s.") % {"name": moved.name, "class": target.name}
            if moved.picture_code != old_code:
                text += " " + _("Their pictures changed: print a new sign-in card.")
            messages.success(request, text)
            return redirect("classrooms:classroom_detail", pk=classroom.pk)
    return render(request, "classrooms/student_move.html",
                  {"form": form, "classroom": classroom, "student": student,
                   "has_targets": targets.exists()})


@staff_required
def student_remove(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    classroom = selectors.classroom_get(request.user, pk)
    student = selectors.student_get(request.user, classroom=classroom, pk=sid)
    error = ""
    if request.method == "POST":
        if request.POST.get("confirm") != "yes":
            error = _("Tick the box to confirm that the student and their data are removed.")
        else:
            name = student.name
            services.student_erase(student=student, by=request.user)
            messages.success(request, _("%(name)s and their data were removed.") % {"name": name})
            return redirect("classrooms:classroom_detail", pk=classroom.pk)
    return render(request, "classrooms/student_remove.html",
                  {"classroom": classroom, "student": student, "error": error,
                   "n_games": student.seats.count(), "n_plays": student.plays.count()})


@staff_required
@require_POST
def student_code_reset(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    classroom = selectors.classroom_get(request.user, pk)
    student = selectors.student_get(request.user, classroom=classroom, pk=sid)
    code = services.picture_code_reset(student=student, by=request.user)
    names = ", ".join(f"{emoji} {name}" for _i, emoji, name in pictures_of(code))
    messages.success(request, _("%(name)s's new pictures: %(pictures)s. Print a new card.")
                     % {"name": student.name, "pictures": names})
    return redirect("classrooms:student_edit", pk=classroom.pk, sid=student.pk)


# --- levels, sign-in cards, code look-up ----------------------------------------------------


@staff_required
def levels(request: HttpRequest, pk: int) -> HttpResponse:
    """Levels one by one (a select per student) or for the ticked students at once (R2)."""
    classroom = selectors.classroom_get(request.user, pk)
    students_qs = selectors.students_visible_to(request.user).filter(classroom=classroom)
    students = list(students_qs.order_by("name"))
    bulk = LevelsBulkForm(request.POST if request.POST.get("action") == "bulk" else None,
                          students_qs=students_qs)
    errors: list[str] = []
    if request.method == "POST" and request.POST.get("action") == "bulk":
        if bulk.is_valid():
            d = bulk.cleaned_data
            try:
                changed = services.levels_set(students=list(d["students"]),
                                              number_range=d["bulk_range"], tier=d["bulk_tier"],
                                              by=request.user)
            except ValidationError as exc:
                errors = _errors(exc)
            else:
                messages.success(request, ngettext("%(count)s student's level changed.",
                                                   "%(count)s students' levels changed.", changed)
                                 % {"count": changed})
                return redirect("classrooms:levels", pk=classroom.pk)
    elif request.method == "POST":
        changes = []
        for student in students:
            try:
                number_range = int(request.POST.get(f"range_{student.pk}", student.number_range))
                tier = int(request.POST.get(f"tier_{student.pk}", student.tier))
            except ValueError:
                errors = [_("A level was out of range; nothing was changed.")]
                break
            if number_range not in NumberRange.values or tier not in Tier.values:
                errors = [_("%(name)s: a level was out of range; nothing was changed.")
                          % {"name": student.name}]
                break
            changes.append((student, number_range, tier))
        if not errors:
            changed = services.levels_set_each(changes=changes, by=request.user)
            messages.success(request, ngettext("%(count)s student's level changed.",
                                               "%(count)s students' levels changed.", changed)
                             % {"count": changed})
            return redirect("classrooms:levels", pk=classroom.pk)
    return render(request, "classrooms/levels.html", {
        "classroom": classroom, "students": students, "bulk": bulk, "errors": errors,
        "range_choices": NumberRange.choices, "tier_choices": Tier.choices, "tab": "levels",
    })


@staff_required
def signin_cards(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = selectors.classroom_get(request.user, pk)
    cards = [(s, pictures_of(s.picture_code)) for s in selectors.classroom_students(classroom)]
    return render(request, "classrooms/signin_cards.html",
                  {"classroom": classroom, "cards": cards, "tab": "cards"})


@staff_required
def code_lookup(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = selectors.classroom_get(request.user, pk)
    form = CodeLookupForm(request.GET or None)
    found = None
    searched = False
    if form.is_bound and form.is_valid():
        searched = True
        found = selectors.picture_code_lookup(classroom=classroom, pictures=form.pictures())
    return render(request, "classrooms/code_lookup.html", {
        "classroom": classroom, "form": form, "found": found, "searched": searched,
        "pictures": PICTURES,
        "found_pictures": pictures_of(found.picture_code) if found else [], "tab": "lookup",
    })


# --- teacher invitations -----------------------------------------------------------------------


@admin_required
def invites(request: HttpRequest) -> HttpResponse:
    form = InviteForm(request.POST or None)
    link = ""
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            _invite, token = services.teacher_invite_create(
                school=request.user.school, by=request.user, email=d["email"],
                first_name=d["first_name"], last_name=d["last_name"])
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            # Shown once: only a hash of the secret is kept.
            link = request.build_absolute_uri(reverse("classrooms:invite_accept", args=[token]))
            form = InviteForm()
    return render(request, "classrooms/invites.html", {
        "form": form, "link": link,
        "invites": list(selectors.invites_visible_to(request.user)[:100]), "now": timezone.now(),
    })


@admin_required
@require_POST
def invite_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    invite = selectors.invites_visible_to(request.user).filter(pk=pk).first()
    if invite is None:
        raise Http404("no such invitation")
    services.teacher_invite_revoke(invite=invite, by=request.user)
    messages.success(request, _("The invitation link no longer works."))
    return redirect("classrooms:invites")


def invite_accept(request: HttpRequest, token: str) -> HttpResponse:
    """The page a new teacher opens from their link: choose a user name and a password."""
    invite = services.teacher_invite_open(token)
    if invite is None:
        return render(request, "classrooms/invite_accept.html", {"expired": True}, status=404)
    form = InviteAcceptForm(request.POST or None, initial={
        "first_name": invite.first_name, "last_name": invite.last_name})
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            user = services.teacher_invite_accept(
                token=token, username=d["username"], password=d["password1"],
                first_name=d["first_name"], last_name=d["last_name"])
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Welcome! Your teacher account is ready."))
            return redirect("classrooms:teacher_home")
    return render(request, "classrooms/invite_accept.html", {"form": form, "invite": invite})


# --- class games -----------------------------------------------------------------------------


def _plan_rules(tables, settings_form) -> None:
    """Attach to each planned table the rules it would play by, and why (R2.3)."""
    caps = settings_form.cleaned_data if settings_form.is_bound and settings_form.is_valid() else {}
    for table in tables:
        table.rules = (table_rules(table.students, cap_range=caps.get("cap_range"),
                                   cap_tier=caps.get("cap_tier"))
                       if table.students else None)


@staff_required
def class_game_setup(request: HttpRequest, pk: int) -> HttpResponse:
    """Who is present → proposed tables by level → adjust → start every table at once."""
    classroom = selectors.classroom_get(request.user, pk)
    students = list(selectors.students_visible_to(request.user)
                    .filter(classroom=classroom).order_by("name"))
    action = request.POST.get("action", "") if request.method == "POST" else ""
    settings_form = ClassGameSettingsForm(request.POST if request.method == "POST" else None)
    present_ids = {str(s.pk) for s in students}
    if request.method == "POST":
        present_ids = set(request.POST.getlist("present")) & present_ids
    present = [s for s in students if str(s.pk) in present_ids]
    tables: list[PlannedTable] = []
    doubles: dict = {}
    errors: list[str] = []
    if action == "propose":
        tables = [PlannedTable(number=i, students=group, bots=1 if len(group) == 1 else 0)
                  for i, group in enumerate(tables_propose(present), start=1)]
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
                    classroom=classroom, tables=tables, settings=settings_form.settings(),
                    by=request.user, starter=d["starter"], cap_range=d["cap_range"],
                    cap_tier=d["cap_tier"])
            except ValidationError as exc:
                errors = _errors(exc)
            else:
                messages.success(request, ngettext(
                    "The game has started at %(count)s table.",
                    "The games have started at %(count)s tables.", len(tables))
                    % {"count": len([t for t in tables if t.students])})
                if request.htmx:
                    response = HttpResponse(status=204)
                    response["HX-Redirect"] = reverse("classrooms:session_live", args=[session.pk])
                    return response
                return redirect("classrooms:session_live", pk=session.pk)
    placed = {s.pk for t in tables for s in t.students}
    n_slots = max([t.number for t in tables] + [len(tables)]) + 1 if tables else 1
    ctx = {
        "classroom": classroom, "students": students, "present": present,
        "present_ids": present_ids, "settings_form": settings_form, "tables": tables,
        "not_playing": [s for s in present if s.pk not in placed] if tables else [],
        "slots": list(range(1, n_slots + 1)), "errors": errors, "planning": bool(tables),
        # One table: at least one student, so at most MAX_PLAYERS - 1 computer players.
        "bot_counts": list(range(0, MAX_PLAYERS)), "strengths": BOT_STRENGTHS, "tab": "play",
        "min_players": MIN_PLAYERS, "max_players": MAX_PLAYERS,
        "running": [s for s in selectors.class_sessions_of(classroom)
                    if s.status in ("running", "paused")][:3],
    }
    template = "classrooms/class_game_setup.html"
    return render(request, template + "#plan" if request.htmx else template, ctx)


@staff_required
def session_live(request: HttpRequest, pk: int) -> HttpResponse:
    """Every table of a class game on one screen; HTMX polls it and gets 204 when nothing moved."""
    session = selectors.session_get(request.user, pk)
    now = timezone.now()
    pulse = selectors.session_pulse(session)
    # Time limits and computer players are applied by whoever looks first: the periodic task,
    # a tablet, or this page (without a broker nothing else would move the bots on).
    due = [gid for gid, _v, status, timer, bot in pulse
           if status == "running" and ((timer and timer <= now) or (bot and bot <= now))]
    for game_id in due:
        game_tick(game_id=game_id, now=now)
    if due:
        pulse = selectors.session_pulse(session)
    fingerprint = selectors.session_fingerprint(pulse, now)
    if request.htmx and request.GET.get("v") == fingerprint:
        return HttpResponse(status=204)
    tables = selectors.live_tables(session, now)
    services.class_session_sync(session=session, games=[t["game"] for t in tables])
    ctx = {"session": session, "classroom": session.classroom, "tables": tables,
           "fingerprint": fingerprint, "strengths": BOT_STRENGTHS, "now": now, "tab": "play",
           "live": session.status != "finished"}
    template = "classrooms/session_live.html"
    return render(request, template + "#live" if request.htmx else template, ctx)


@staff_required
@require_POST
def session_control(request: HttpRequest, pk: int) -> HttpResponse:
    session = selectors.session_get(request.user, pk)
    action = request.POST.get("action")
    if action == "pause":
        n = services.class_session_pause(session=session, by=request.user)
        messages.success(request, ngettext("%(count)s table paused.", "%(count)s tables paused.", n)
                         % {"count": n})
    elif action == "resume":
        n = services.class_session_resume(session=session, by=request.user)
        messages.success(request, ngettext("%(count)s table resumed.",
                                           "%(count)s tables resumed.", n) % {"count": n})
    elif action == "end":
        services.class_session_end(session=session, by=request.user)
        messages.success(request, _("The class game is over. Scores are in the history."))
    else:
        messages.error(request, _("Unknown action."))
    return redirect("classrooms:session_live", pk=session.pk)


@staff_required
@require_POST
def seat_replace(request: HttpRequest, pk: int, gid: int) -> HttpResponse:
    """Replace an absent student by a computer player in the middle of a game (R8)."""
    session = selectors.session_get(request.user, pk)
    game = selectors.game_get(request.user, gid)
    if game.session_id != session.pk:
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
            services.class_seat_replace(game=game, position=position,
                                        strength=request.POST.get("strength", ""),
                                        by=request.user)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, _("A computer player now plays for %(name)s at %(table)s.")
                             % {"name": seat.display_name, "table": str(game)})
    return redirect("classrooms:session_live", pk=session.pk)


# --- history and replay ----------------------------------------------------------------------


@staff_required
def history(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = selectors.classroom_get(request.user, pk)
    page = Paginator(selectors.finished_games(classroom), 30).get_page(request.GET.get("page"))
    rows = [(game, rules_summary(game.config["rules"]["max_number"], game.config["rules"]["tier"])
             if (game.config or {}).get("rules") else "") for game in page.object_list]
    for game, _summary in rows:
        name_seats(game.seats.all())  # "Computer 1"... in the reader's language, no query each
    return render(request, "classrooms/history.html",
                  {"classroom": classroom, "page": page, "rows": rows, "tab": "history"})


@staff_required
def game_replay(request: HttpRequest, pk: int) -> HttpResponse:
    game = selectors.game_get(request.user, pk)
    replay = selectors.game_replay(game)
    return render(request, "classrooms/replay.html", {
        "game": game, "classroom": game.classroom, "replay": replay, "tab": "history",
        "seats": name_seats(game.seats.all()),
    })
