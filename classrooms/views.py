"""The teachers' pages: classes, students, levels, sign-in cards, teacher invitations.

Views parse the request, call one service or selector and render; every object is fetched
through classrooms.permissions, so a foreign id is a 404 like a missing one. The class-game
pages (set-up, live view, history, replay) are in classgames.views.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from . import audit, invitations, permissions, selectors, services
from .audit.models import Action
from .forms import (
    ClassroomCopyForm,
    ClassroomForm,
    CodeLookupForm,
    InviteAcceptForm,
    InviteForm,
    LevelsBulkForm,
    StudentForm,
    StudentMoveForm,
    StudentsPasteForm,
)
from .models import Classroom, NumberRange, Student, Tier
from .pages import CLASS_PAGE, panels_context
from .pictures import PICTURES, pictures_of
from .signin_locks import signin_guessed, signin_locks, signin_unlock


def _form_errors(form, exc: ValidationError) -> None:
    for message in exc.messages:
        form.add_error(None, message)


def _on_valid_post(request: HttpRequest, form, write) -> HttpResponse | None:
    """A posted form, once valid, goes to `write(cleaned_data)`: the page's one service call,
    its message and its redirect. A refusal (ValidationError) becomes the form's errors, and
    None tells the page to render the form again."""
    if request.method == "POST" and form.is_valid():
        try:
            return write(form.cleaned_data)
        except ValidationError as exc:
            _form_errors(form, exc)
    return None


def _class_student(request: HttpRequest, pk: int, sid: int) -> tuple[Classroom, Student]:
    """A student's page: the class, then the student in it, both through permissions."""
    classroom = permissions.classroom_get(request.user, pk)
    return classroom, permissions.student_get(request.user, classroom=classroom, pk=sid)


# --- home and classes ------------------------------------------------------------------------


@permissions.staff_required
def teacher_home(request: HttpRequest) -> HttpResponse:
    ctx = selectors.teacher_home(request.user)
    return render(request, "classrooms/teacher_home.html", ctx)


@permissions.staff_required
def classroom_create(request: HttpRequest) -> HttpResponse:
    user = request.user
    is_admin = permissions.picks_teachers(user)
    teachers_qs = selectors.teachers_of_school(user) if is_admin else None
    form = ClassroomForm(
        request.POST or None,
        teachers_qs=teachers_qs,
        initial={"school_year": services.school_year_current()},
    )

    def create(d) -> HttpResponse:
        classroom = services.classroom_create(
            school=user.school,
            name=d["name"],
            school_year=d["school_year"],
            teachers=d.get("teachers") or [],
            by=user,
            student_idle_minutes=d["student_idle_minutes"],
            read_aloud=d["read_aloud"],
        )
        audit.record(request, Action.CLASS_CREATED, classroom)
        messages.success(
            request,
            _("Class “%(name)s” created. Its tablet code is %(code)s.")
            % {"name": classroom.name, "code": classroom.code},
        )
        return redirect("classrooms:classroom_detail", pk=classroom.pk)

    if done := _on_valid_post(request, form, create):
        return done
    return render(request, "classrooms/classroom_form.html", {"form": form, "creating": True})


@permissions.staff_required
def classroom_detail(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = permissions.classroom_get(request.user, pk)
    students = selectors.classroom_students(classroom)
    rows = [(s, pictures_of(s.picture_code)) for s in students]
    guessed = signin_guessed(students)
    return render(
        request,
        "classrooms/classroom_detail.html",
        {
            "classroom": classroom,
            "rows": rows,
            "n_students": len(students),
            "teachers": list(classroom.teachers.all()),
            # Someone is trying these children's pictures (classrooms/_signin_alerts.html).
            "signin_alerts": [s for s in students if s.pk in guessed],
            "tab": "students",
            # The class games of the class and "Play now" (classgames), the open level
            # proposals where the teacher looks (reports): pages.CLASS_PAGE.
            **panels_context(CLASS_PAGE, classroom, students),
        },
    )


def _class_settings(classroom: Classroom) -> dict:
    return {
        "name": classroom.name,
        "student_idle_minutes": classroom.student_idle_minutes,
        "read_aloud": classroom.read_aloud,
        "teachers": sorted(classroom.teachers.values_list("pk", flat=True)),
    }


def _record_class_changes(request: HttpRequest, classroom: Classroom, before: dict) -> None:
    """A rename or a change of settings, and a change of teachers: a row each, if any."""
    after = _class_settings(classroom)
    changed = [k for k in ("name", "student_idle_minutes", "read_aloud") if before[k] != after[k]]
    if changed:
        old_name = before["name"] if "name" in changed else ""
        audit.record(request, Action.CLASS_CHANGED, classroom, changed=changed, old_name=old_name)
    if before["teachers"] != after["teachers"]:
        names = [audit.person_name(t) for t in classroom.teachers.order_by("username")]
        audit.record(request, Action.CLASS_TEACHERS, classroom, new=", ".join(names))


@permissions.staff_required
def classroom_edit(request: HttpRequest, pk: int) -> HttpResponse:
    user = request.user
    classroom = permissions.classroom_get(user, pk)
    is_admin = permissions.picks_teachers(user)
    teachers_qs = selectors.teachers_of_school(user) if is_admin else None
    initial = {
        "name": classroom.name,
        "student_idle_minutes": classroom.student_idle_minutes,
        "read_aloud": classroom.read_aloud,
        "teachers": list(classroom.teachers.all()) if is_admin else None,
    }
    form = ClassroomForm(
        request.POST or None, teachers_qs=teachers_qs, editing=True, initial=initial
    )

    def save(d) -> HttpResponse:
        before = _class_settings(classroom)
        saved = services.classroom_rename(
            classroom=classroom,
            name=d["name"],
            by=user,
            student_idle_minutes=d["student_idle_minutes"],
            read_aloud=d["read_aloud"],
            teachers=d["teachers"] if is_admin else None,
        )
        _record_class_changes(request, saved, before)
        messages.success(request, _("Class saved."))
        return redirect("classrooms:classroom_detail", pk=classroom.pk)

    if done := _on_valid_post(request, form, save):
        return done
    return render(
        request,
        "classrooms/classroom_form.html",
        {"form": form, "classroom": classroom, "creating": False},
    )


@permissions.staff_required
@require_POST
def classroom_archive(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = permissions.classroom_get(request.user, pk)
    archive = request.POST.get("action") != "restore"
    services.classroom_archive(classroom=classroom, by=request.user, archived=archive)
    audit.record(request, Action.CLASS_ARCHIVED if archive else Action.CLASS_RESTORED, classroom)
    if archive:
        messages.success(request, _("Class “%(name)s” archived.") % {"name": classroom.name})
        return redirect("classrooms:teacher_home")
    messages.success(request, _("Class “%(name)s” is back in use.") % {"name": classroom.name})
    return redirect("classrooms:classroom_detail", pk=classroom.pk)


@permissions.staff_required
def classroom_copy(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = permissions.classroom_get(request.user, pk)
    students_qs = selectors.class_students(request.user, classroom)
    form = ClassroomCopyForm(
        request.POST or None,
        students_qs=students_qs,
        initial={
            "name": classroom.name,
            "school_year": services.school_year_next(classroom.school_year),
            "students": list(students_qs),
            "archive_old": True,
        },
    )

    def copy(d) -> HttpResponse:
        new = services.classroom_copy_to_next_year(
            classroom=classroom,
            by=request.user,
            name=d["name"],
            school_year=d["school_year"],
            students=d["students"],
            archive_old=d["archive_old"],
        )
        audit.record(
            request,
            Action.CLASS_COPIED,
            new,
            from_class=str(classroom),
            to_class=str(new),
            count=new.students.count(),
        )
        messages.success(
            request,
            _("Class “%(name)s” for %(year)s is ready, code %(code)s.")
            % {"name": new.name, "year": new.school_year, "code": new.code},
        )
        return redirect("classrooms:classroom_detail", pk=new.pk)

    if done := _on_valid_post(request, form, copy):
        return done
    return render(request, "classrooms/classroom_copy.html", {"form": form, "classroom": classroom})


# --- students --------------------------------------------------------------------------------


@permissions.staff_required
def students_add(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = permissions.classroom_get(request.user, pk)
    form = StudentsPasteForm(request.POST or None)
    paste_errors: list[str] = []
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            added = services.students_bulk_add(
                classroom=classroom,
                text=d["names"],
                number_range=d["number_range"],
                tier=d["tier"],
                by=request.user,
            )
        except ValidationError as exc:
            paste_errors = list(exc.messages)
        else:
            audit.record(
                request,
                Action.STUDENTS_ADDED,
                classroom,
                count=len(added),
                students=[s.name for s in added],
            )
            messages.success(
                request,
                ngettext("%(count)s student added.", "%(count)s students added.", len(added))
                % {"count": len(added)},
            )
            return redirect("classrooms:classroom_detail", pk=classroom.pk)
    return render(
        request,
        "classrooms/students_add.html",
        {"form": form, "classroom": classroom, "paste_errors": paste_errors},
    )


@permissions.staff_required
def student_edit(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    classroom, student = _class_student(request, pk, sid)
    form = StudentForm(
        request.POST or None,
        initial={
            "name": student.name,
            "number_range": student.number_range,
            "tier": student.tier,
            "untimed": student.untimed,
        },
    )

    def save(d) -> HttpResponse:
        old_name, old_level = student.name, _level_words(*student.level)
        saved = services.student_update(
            student=student,
            name=d["name"],
            number_range=d["number_range"],
            tier=d["tier"],
            untimed=bool(d.get("untimed")),
            by=request.user,
        )
        if saved.name != old_name:
            audit.record(request, Action.STUDENT_RENAMED, saved, old_name=old_name)
        if _level_words(*saved.level) != old_level:
            new_level = _level_words(*saved.level)
            audit.record(request, Action.LEVELS_CHANGED, saved, old=old_level, new=new_level)
        messages.success(request, _("%(name)s saved.") % {"name": d["name"]})
        return redirect("classrooms:classroom_detail", pk=classroom.pk)

    if done := _on_valid_post(request, form, save):
        return done
    return render(
        request,
        "classrooms/student_edit.html",
        {
            "form": form,
            "classroom": classroom,
            "student": student,
            "pictures": pictures_of(student.picture_code),
            "history": selectors.level_history(student),
            "signin_locks": signin_locks(student),
            "signin_guessed": student.pk in signin_guessed([student]),
        },
    )


@permissions.staff_required
@require_POST
def student_signin_unlock(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    """One tap: the child may sign in again at once, after too many wrong pictures."""
    classroom, student = _class_student(request, pk, sid)
    signin_unlock(student)
    audit.record(request, Action.CHILD_SIGNIN_UNLOCKED, student)
    messages.success(request, _("%(name)s can sign in again.") % {"name": student.name})
    return redirect("classrooms:student_edit", pk=classroom.pk, sid=student.pk)


@permissions.staff_required
def student_move(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    classroom, student = _class_student(request, pk, sid)
    targets = selectors.classrooms_to_move_to(request.user, student=student)
    form = StudentMoveForm(request.POST or None, classrooms_qs=targets)

    def move(d) -> HttpResponse:
        target = d["to_classroom"]
        old_code = student.picture_code
        moved = services.student_move(student=student, to_classroom=target, by=request.user)
        audit.record(
            request,
            Action.STUDENT_MOVED,
            moved,
            from_class=str(classroom),
            to_class=str(target),
        )
        text = _("%(name)s moved to %(class)s.") % {"name": moved.name, "class": target.name}
        if moved.picture_code != old_code:
            text += " " + _("Their pictures changed: print a new sign-in card.")
        messages.success(request, text)
        return redirect("classrooms:classroom_detail", pk=classroom.pk)

    if done := _on_valid_post(request, form, move):
        return done
    return render(
        request,
        "classrooms/student_move.html",
        {"form": form, "classroom": classroom, "student": student, "has_targets": targets.exists()},
    )


@permissions.staff_required
def student_remove(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    classroom, student = _class_student(request, pk, sid)
    error = ""
    if request.method == "POST":
        if request.POST.get("confirm") != "yes":
            error = _("Tick the box to confirm that the student and their data are removed.")
        else:
            name, target = student.name, audit.about(student)
            services.student_erase(student=student, by=request.user)
            audit.record(request, Action.STUDENT_ERASED, target)
            messages.success(request, _("%(name)s and their data were removed.") % {"name": name})
            return redirect("classrooms:classroom_detail", pk=classroom.pk)
    return render(
        request,
        "classrooms/student_remove.html",
        {
            "classroom": classroom,
            "student": student,
            "error": error,
            "n_games": student.seats.count(),
            "n_plays": student.plays.count(),
        },
    )


@permissions.staff_required
@require_POST
def student_code_reset(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    """New pictures in one tap (from the student's page or the class page's warning): the
    guesses at the old ones are worth nothing, so every pause and warning about them goes."""
    classroom, student = _class_student(request, pk, sid)
    code = services.picture_code_reset(student=student, by=request.user)
    signin_unlock(student)
    audit.record(request, Action.PICTURES_RESET, student)
    names = ", ".join(str(name) for _i, _key, name in pictures_of(code))
    messages.success(
        request,
        _("%(name)s's new pictures: %(pictures)s. Print a new card.")
        % {"name": student.name, "pictures": names},
    )
    return redirect("classrooms:student_edit", pk=classroom.pk, sid=student.pk)


# --- levels, sign-in cards, code look-up ----------------------------------------------------


def _level_words(number_range: int, tier: int) -> str:
    """A level as the log writes it: "up to 10, tier 1"."""
    return f"{NumberRange(number_range).label}, {Tier(tier).label}"


def _levels_changed(request: HttpRequest, classroom: Classroom, changed: int) -> HttpResponse:
    """The one message and redirect after levels were set, one by one or all at once."""
    if changed:
        audit.record(request, Action.LEVELS_CHANGED, classroom, count=changed)
    messages.success(
        request,
        ngettext(
            "%(count)s student's level changed.",
            "%(count)s students' levels changed.",
            changed,
        )
        % {"count": changed},
    )
    return redirect("classrooms:levels", pk=classroom.pk)


@permissions.staff_required
def levels(request: HttpRequest, pk: int) -> HttpResponse:
    """Levels one by one (a select per student) or for the ticked students at once (R2)."""
    classroom = permissions.classroom_get(request.user, pk)
    students_qs = selectors.class_students(request.user, classroom)
    students = list(students_qs.order_by("name"))
    bulk = LevelsBulkForm(
        request.POST if request.POST.get("action") == "bulk" else None, students_qs=students_qs
    )
    errors: list[str] = []
    if request.method == "POST" and request.POST.get("action") == "bulk":
        if bulk.is_valid():
            d = bulk.cleaned_data
            try:
                changed = services.levels_set(
                    students=list(d["students"]),
                    number_range=d["bulk_range"],
                    tier=d["bulk_tier"],
                    by=request.user,
                )
            except ValidationError as exc:
                errors = list(exc.messages)
            else:
                return _levels_changed(request, classroom, changed)
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
                errors = [
                    _("%(name)s: a level was out of range; nothing was changed.")
                    % {"name": student.name}
                ]
                break
            changes.append((student, number_range, tier))
        if not errors:
            changed = services.levels_set_each(changes=changes, by=request.user)
            return _levels_changed(request, classroom, changed)
    return render(
        request,
        "classrooms/levels.html",
        {
            "classroom": classroom,
            "students": students,
            "bulk": bulk,
            "errors": errors,
            "range_choices": NumberRange.choices,
            "tier_choices": Tier.choices,
            "tab": "levels",
        },
    )


@permissions.staff_required
def signin_cards(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = permissions.classroom_get(request.user, pk)
    cards = [(s, pictures_of(s.picture_code)) for s in selectors.classroom_students(classroom)]
    return render(
        request,
        "classrooms/signin_cards.html",
        {"classroom": classroom, "cards": cards, "tab": "cards"},
    )


@permissions.staff_required
def code_lookup(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = permissions.classroom_get(request.user, pk)
    form = CodeLookupForm(request.GET or None)
    found = None
    searched = False
    if form.is_bound and form.is_valid():
        searched = True
        found = selectors.picture_code_lookup(classroom=classroom, pictures=form.pictures())
    return render(
        request,
        "classrooms/code_lookup.html",
        {
            "classroom": classroom,
            "form": form,
            "found": found,
            "searched": searched,
            "pictures": PICTURES,
            "found_pictures": pictures_of(found.picture_code) if found else [],
            "tab": "lookup",
        },
    )


# --- teacher invitations -----------------------------------------------------------------------


@permissions.admin_required
def invites(request: HttpRequest) -> HttpResponse:
    form = InviteForm(request.POST or None)
    link = ""
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            invite, token = invitations.create(
                services.TEACHER_LINK,
                by=request.user,
                target=request.user.school,
                email=d["email"],
                first_name=d["first_name"],
                last_name=d["last_name"],
            )
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            audit.record(request, Action.TEACHER_INVITED, invite)
            # Shown once: only a hash of the secret is kept.
            link = request.build_absolute_uri(reverse("classrooms:invite_accept", args=[token]))
            form = InviteForm()
    return render(
        request,
        "classrooms/invites.html",
        {
            "form": form,
            "link": link,
            "invites": list(selectors.invites_of_school(request.user)[:100]),
        },
    )


@permissions.admin_required
@require_POST
def invite_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    invite = permissions.teacher_invite_get(request.user, pk)
    if invitations.withdraw(services.TEACHER_LINK, invite, by=request.user):
        audit.record(request, Action.TEACHER_INVITE_WITHDRAWN, invite)
    messages.success(request, _("The invitation link no longer works."))
    return redirect("classrooms:invites")


def invite_accept(request: HttpRequest, token: str) -> HttpResponse:
    """The page a new teacher opens from their link: choose a user name and a password. A link
    that does not work says why (unknown, expired, used, withdrawn); wrong links are counted
    like wrong parents' codes (classrooms.invitations.guessing)."""
    kind = services.TEACHER_LINK
    try:
        with invitations.guessing(kind, request, token):
            invite = invitations.open_secret(kind, token)
    except invitations.InvitationRefused as refused:
        status = 429 if refused.reason == invitations.THROTTLED else 404
        return render(
            request, "classrooms/invite_accept.html", {"refused": refused.message}, status=status
        )
    form = InviteAcceptForm(
        request.POST or None,
        initial={"first_name": invite.first_name, "last_name": invite.last_name},
    )

    def accept(d) -> HttpResponse:
        user = invitations.redeem(
            kind,
            token,
            username=d["username"],
            password=d["password1"],
            first_name=d["first_name"],
            last_name=d["last_name"],
        )
        audit.record(request, Action.TEACHER_JOINED, user, actor=user)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome! Your teacher account is ready."))
        return redirect("classrooms:teacher_home")

    if done := _on_valid_post(request, form, accept):
        return done
    return render(request, "classrooms/invite_accept.html", {"form": form, "invite": invite})
