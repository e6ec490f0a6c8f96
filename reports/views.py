"""Report pages: parents (their own children only), teachers (class grid, drill-down), admins."""

from __future__ import annotations

import csv
import json
import re
import unicodedata
from datetime import date, datetime
from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from classgames import selectors as class_game_selectors
from classrooms import audit, invitations, permissions
from classrooms.audit.models import Action
from classrooms.models import Classroom, User
from classrooms.names import name_for_display

from . import permissions as report_permissions
from . import selectors, services
from .charts import report_charts
from .models import WeeklyReport
from .programmes import programme_codes, school_programme
from .progress import BANDS, SKILL_LABELS, week_bounds


def _is_staff(user: User) -> bool:
    return permissions.is_staff(user)


def _week_param(request: HttpRequest) -> date | None:
    value = request.GET.get("week") or request.POST.get("week")
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def _error_text(error: ValidationError) -> str:
    return " ".join(error.messages)


def _has_junk(*values: str) -> bool:
    """A NUL byte or another control character: no name, code or password has one."""
    return any(unicodedata.category(ch) in ("Cc", "Cs") for value in values for ch in value)


def _junk_error() -> str:
    return _("Some of the text has a character that is not allowed. Please type it again.")


# --- parents ----------------------------------------------------------------------------------


@login_required
def parent_home(request: HttpRequest) -> HttpResponse:
    """A parent's children, each with a link to their latest report; a form to add a child."""
    if _is_staff(request.user):
        return redirect("reports:class_list")
    if not permissions.is_parent(request.user):
        return redirect("home")
    return render(
        request, "reports/parent_home.html", {"children": selectors.parent_children(request.user)}
    )


def join(request: HttpRequest) -> HttpResponse:
    """A parent creates an account with the code the teacher gave them."""
    if request.user.is_authenticated and permissions.is_parent(request.user):
        return redirect(
            reverse("reports:parent_home")
            + (
                f"?{urlencode({'code': request.GET['code'][:64]})}"
                if request.GET.get("code")
                else ""
            )
        )
    values = {
        "code": request.POST.get("code", request.GET.get("code", "")),
        "username": request.POST.get("username", ""),
        "first_name": request.POST.get("first_name", ""),
        "email": request.POST.get("email", ""),
    }
    error = ""
    if request.method == "POST":
        if _has_junk(
            *values.values(), request.POST.get("password", ""), request.POST.get("password2", "")
        ):
            error = _junk_error()
            values = {key: "" if _has_junk(value) else value for key, value in values.items()}
        elif invitations.too_many_guesses(services.PARENT_CODE, request, values["code"]):
            error = str(services.PARENT_CODE.refusals[invitations.THROTTLED])
        elif request.POST.get("password", "") != request.POST.get("password2", ""):
            error = _("The two passwords are not the same.")
        else:
            try:
                with invitations.guessing(services.PARENT_CODE, request, values["code"]):
                    user = services.parent_signup(
                        code=values["code"],
                        username=values["username"],
                        password=request.POST.get("password", ""),
                        first_name=values["first_name"],
                        email=values["email"],
                    )
            except ValidationError as exc:
                error = _error_text(exc)
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                messages.success(request, _("Welcome! Your account is linked to your child."))
                return redirect("reports:parent_home")
    return render(
        request,
        "reports/join.html",
        {"values": values, "error": error},
        status=400 if error else 200,
    )


@login_required
@require_POST
def link_child(request: HttpRequest) -> HttpResponse:
    """A parent with an account adds another child with a new code."""
    if not permissions.is_parent(request.user):
        raise Http404("parents only")
    code = request.POST.get("code", "")
    if _has_junk(code):
        messages.error(request, _junk_error())
        return redirect("reports:parent_home")
    try:
        with invitations.guessing(services.PARENT_CODE, request, code):
            link = invitations.redeem(services.PARENT_CODE, code, parent=request.user)
    except ValidationError as exc:
        messages.error(request, _error_text(exc))
        return redirect("reports:parent_home")
    messages.success(
        request, _("%(name)s is now linked to your account.") % {"name": link.student.name}
    )
    return redirect("reports:child", student_id=link.student_id)


def _child_context(student, report: WeeklyReport | None) -> dict:
    data = report.data if report else {}
    lines = selectors.skill_lines(data) if report else []
    return {
        "student": student,
        "report": report,
        # The current week's report counts the games played so far: it says so until Sunday's end.
        "so_far": report is not None and not services.week_is_over(report),
        "data": data,
        "lines": lines,
        # The expectations of the school's programme each skill shown trains.
        "programme": school_programme(student.classroom.school, [line.key for line in lines]),
        "charts": report_charts(data) if report else [],
        "tips": selectors.practice_at_home(data) if report else [],
        "bands": BANDS,
        "weeks": selectors.report_weeks(student),
        "level": _level_text(student.number_range, student.tier),
        "levels": [
            {**lv, "text": _level_text(lv["number_range"], lv["tier"]), "at": _parse_dt(lv["at"])}
            for lv in data.get("levels", [])
        ],
    }


def _parse_dt(value: str) -> datetime:
    return datetime.fromisoformat(value)


def _level_text(number_range: int, tier: int) -> str:
    from classrooms.models import NumberRange, Tier

    return _("numbers %(range)s, operations tier %(tier)s") % {
        "range": NumberRange(number_range).label,
        "tier": Tier(tier).label,
    }


@login_required
def child_report(request: HttpRequest, student_id: int) -> HttpResponse:
    """The parent's page: the latest report (or a chosen week) of their own child only."""
    student = permissions.child_get(request.user, student_id)
    report = services.report_read(student=student, week=_week_param(request))
    if report is None and _week_param(request):
        raise Http404("no report for that week")
    ctx = _child_context(student, report)
    if report is not None:
        # The week's games, each with its replay (classgames.replay_views.parent_replay).
        since, until = week_bounds(report.week_start, selectors.school_tz(student.classroom.school))
        ctx["games"] = class_game_selectors.games_of_student(student, since=since, until=until)
    return render(request, "reports/child.html", ctx)


@login_required
def child_report_pdf(request: HttpRequest, student_id: int) -> HttpResponse:
    from .pdf import report_pdf

    student = permissions.child_get(request.user, student_id)
    report = services.report_read(student=student, week=_week_param(request))
    if report is None:
        raise Http404("no report yet")
    context = _child_context(student, report)
    response = HttpResponse(report_pdf(context), content_type="application/pdf")
    name = slugify(f"kavet-{student.name}-{report.week_start}") or "kavet-report"
    response["Content-Disposition"] = f'attachment; filename="{name}.pdf"'
    return response


# --- teachers -----------------------------------------------------------------------------


@login_required
def class_list(request: HttpRequest) -> HttpResponse:
    if permissions.is_parent(request.user):
        return redirect("reports:parent_home")
    classes = (
        permissions.readable(request.user, Classroom)
        .filter(archived_at__isnull=True)
        .order_by("-school_year", "name")
    )
    return render(request, "reports/class_list.html", {"classes": classes})


@login_required
def class_report(request: HttpRequest, classroom_id: int) -> HttpResponse:
    """The class grid: students × skills in colours, who needs help, frequent mistakes."""
    classroom = permissions.classroom_get(request.user, classroom_id)
    report = selectors.class_report(classroom=classroom, week_start=_week_param(request))
    # The class's own page among its tabs (classrooms/base_teacher.html), not a page apart.
    return render(
        request,
        "reports/class_report.html",
        {
            **report,
            "proposals": proposal_contexts(classroom),
            "tab": "progress",
            "programme": school_programme(classroom.school, [s["key"] for s in report["skills"]]),
        },
    )


@login_required
def class_report_csv(request: HttpRequest, classroom_id: int) -> HttpResponse:
    """The class grid for a spreadsheet (UTF-8 with a BOM so spreadsheets read accents): one row
    per student; per skill its band in words and its right answers as a plain number, the unit
    in the column's header ("Right answers (%)": 83); counts as integers."""
    classroom = permissions.classroom_get(request.user, classroom_id)
    report = selectors.class_report(classroom=classroom, week_start=_week_param(request))
    header, rows = class_csv_table(report)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    week = report["week_start"].isoformat() if report["week_start"] else "none"
    response["Content-Disposition"] = (
        f'attachment; filename="{slugify(classroom.name) or "class"}-{week}.csv"'
    )
    response.write("\ufeff")
    writer = csv.writer(response)
    writer.writerow(header)  # our own words; the rows hold what people typed
    writer.writerows([csv_cell(cell) for cell in row] for row in rows)
    audit.record(request, Action.EXPORT_CSV, classroom, week=week)
    return response


def _percent(accuracy: float | None) -> int | None:
    """0.8333 -> 83: a number a spreadsheet can sum and sort; None (empty) when nothing to say."""
    return None if accuracy is None else round(100 * accuracy)


def class_csv_table(report: dict) -> tuple[list[str], list[list[object]]]:
    """The header and rows of the class CSV, from the same report as the screen's grid."""
    from .progress import BAND_BY_KEY

    header = [_("Student")]
    for skill in report["skills"]:
        # The skill last: a header starting "+ − to 10" would read as a formula.
        header += [
            _("Level: %(skill)s") % {"skill": skill["short"]},
            _("Right answers (%%): %(skill)s") % {"skill": skill["short"]},
            _("Tries: %(skill)s") % {"skill": skill["short"]},
            _("Programme: %(skill)s") % {"skill": skill["short"]},
        ]
    header += [_("Operations this week"), _("Right answers this week (%)")]
    # The codes of the expectations each skill trains in the school's programme (every row).
    programme = report["classroom"].school.programme
    codes = {skill["key"]: programme_codes(programme, skill["key"]) for skill in report["skills"]}
    rows: list[list[object]] = []
    for row in report["rows"]:
        bands = row["report"].data.get("bands", {}) if row["report"] else {}
        line: list[object] = [row["student"].name]
        for skill in report["skills"]:
            figures = bands.get(skill["key"]) or {}
            if not figures.get("n"):
                line += [None, None, 0, codes[skill["key"]]]
                continue
            band = BAND_BY_KEY.get(figures.get("band") or "")
            line += [
                str(band.label) if band else _("Not enough play yet"),
                _percent(figures.get("accuracy")),
                int(figures["n"]),
                codes[skill["key"]],
            ]
        line += [int(row["week_ops"] or 0), _percent(row["week_accuracy"])]
        rows.append(line)
    return header, rows


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?\d+(?:[.,]\d+)?(?: ?%)?", re.ASCII)


def csv_cell(value: object) -> object:
    """A cell a spreadsheet shows as text, never runs as a formula (=HYPERLINK(...) in a name);
    numbers, negative ones too, stay numbers. A name kept before classrooms.names checked names
    loses its hidden direction controls here, so they cannot reorder the sheet's other cells."""
    if isinstance(value, (int, float)) or value is None:
        return value
    text = name_for_display(str(value))
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def _level_step_text(rec) -> str:
    """Only the axis that changes: "numbers up to 20", or "operations tier 2 – four operations"."""
    from classrooms.models import NumberRange, Tier

    if rec.number_range != rec.from_number_range and rec.tier == rec.from_tier:
        return _("numbers %(range)s") % {"range": NumberRange(rec.number_range).label}
    if rec.tier != rec.from_tier and rec.number_range == rec.from_number_range:
        return _("operations tier %(tier)s") % {"tier": Tier(rec.tier).label}
    return _level_text(rec.number_range, rec.tier)


def proposal_contexts(classroom: Classroom) -> list[dict]:
    """The class's open level proposals as reports/student.html#recommendation shows them (the
    class report and the class page, classrooms.views.classroom_detail)."""
    return [_rec_context(r) for r in selectors.class_proposals(classroom)]


def _rec_context(rec) -> dict:
    evidence = rec.evidence or {}
    return {
        "rec": rec,
        "target": _level_step_text(rec),
        "percent": round(100 * (evidence.get("accuracy") or 0)),
        "n": evidence.get("n", 0),
        "median_s": round(evidence["median_ms"] / 1000) if evidence.get("median_ms") else None,
        "up": evidence.get("direction") == "up",
    }


@login_required
def student_report(request: HttpRequest, student_id: int) -> HttpResponse:
    """The teacher's drill-down for one student: every figure, advice, parents' access."""
    student = permissions.staff_student_get(request.user, student_id)
    report = services.report_read(student=student, week=_week_param(request))
    rec = selectors.open_recommendation(student)
    return render(
        request,
        "reports/student.html",
        {
            **_child_context(student, report),
            "rec_ctx": _rec_context(rec) if rec else None,
            "access": selectors.parent_access_of(student),
            "is_admin": permissions.is_school_admin(request.user),
            "skill_labels": SKILL_LABELS,
            "week_rows": _week_rows(report.data) if report else [],
        },
    )


def _week_rows(data: dict) -> list[dict]:
    rows = []
    for key, label in SKILL_LABELS.items():
        week = data.get("week", {}).get("skills", {}).get(key)
        year = data.get("year", {}).get("skills", {}).get(key)
        if not week and not year:
            continue
        band = data.get("bands", {}).get(key, {}).get("band")
        rows.append(
            {"key": key, "label": label, "week": week or {}, "year": year or {}, "band": band}
        )
    return rows


@login_required
@require_POST
def recommendation_decide(request: HttpRequest, rec_id: int, decision: str) -> HttpResponse:
    """One tap: accept (the level changes) or dismiss a level proposal."""
    if decision not in ("accept", "dismiss"):
        raise Http404("no such decision")
    rec = report_permissions.recommendation_get(request.user, rec_id)
    try:
        rec = services.recommendation_decide(
            recommendation=rec, accept=decision == "accept", by=request.user
        )
    except ValidationError as exc:
        messages.error(request, _error_text(exc))
        rec.refresh_from_db()
    else:
        if decision == "accept":
            audit.record(
                request,
                Action.LEVELS_CHANGED,
                rec.student,
                new=_level_text(rec.number_range, rec.tier),
            )
            messages.success(
                request,
                _("%(name)s now plays at: %(level)s.")
                % {"name": rec.student.name, "level": _level_text(rec.number_range, rec.tier)},
            )
        else:
            messages.info(request, _("Proposal dismissed; the level stays as it is."))
    if request.htmx:
        return render(
            request, "reports/student.html#recommendation", {"rec_ctx": _rec_context(rec)}
        )
    back = request.POST.get("next", "")
    # Back to the page the proposal was decided on: a report page or the class page.
    return redirect(
        back
        if back.startswith(("/reports/", "/teacher/classes/"))
        else reverse("reports:student", args=[rec.student_id])
    )


@login_required
@require_POST
def build(request: HttpRequest) -> HttpResponse:
    """ "Build now" for one student or a class; answers with the progress bar."""
    student = classroom = None
    if request.POST.get("student"):
        student = permissions.staff_student_get(request.user, _int(request.POST["student"]))
    elif request.POST.get("classroom"):
        classroom = permissions.classroom_get(request.user, _int(request.POST["classroom"]))
    else:
        raise Http404("nothing to build")
    try:
        job = services.report_job_create(
            by=request.user,
            student=student,
            classroom=classroom,
            week_start=_monday(_week_param(request)),
        )
    except ValidationError as exc:
        if request.htmx:
            return HttpResponse(f'<p class="form-error">{_error_text(exc)}</p>')
        messages.error(request, _error_text(exc))
        return redirect(
            reverse("reports:student", args=[student.pk])
            if student
            else reverse("reports:class", args=[classroom.pk])
        )
    if request.htmx:
        return _progress(request, selectors.job_progress(job))
    return redirect("reports:job", job_id=job.pk)


def _progress(request: HttpRequest, context: dict) -> HttpResponse:
    """The progress bar for HTMX. Once the build is over, the report page it was asked from
    reloads with the new reports (and says so), rather than keep "No reports yet" under "Done"."""
    job = context["job"]
    page = urlsplit(request.htmx.current_url or "").path
    if (
        context["finished"]
        and not context["failed"]
        and page
        and page != reverse("reports:job", args=[job.pk])
    ):
        messages.success(
            request,
            ngettext("Done: %(n)s report built.", "Done: all %(n)s reports built.", job.total)
            % {"n": job.total},
        )
        response = HttpResponse(status=204)
        response["HX-Refresh"] = "true"
        return response
    return render(request, "reports/job.html#progress", context)


def _int(value: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise Http404("bad id") from None


def _monday(day: date | None) -> date | None:
    return day if day is None or day.weekday() == 0 else None


@login_required
def job(request: HttpRequest, job_id: int) -> HttpResponse:
    """The progress of a build request: the whole page, or the bar for HTMX polling."""
    job = report_permissions.job_get(request.user, job_id)
    context = selectors.job_progress(job)
    if request.htmx:
        return _progress(request, context)
    return render(request, "reports/job.html", {**context, "classroom": job.classroom})


@login_required
@require_POST
def invite_create(request: HttpRequest, student_id: int) -> HttpResponse:
    """A one-time code for a child's parent, shown once on a printable slip."""
    student = permissions.staff_student_get(request.user, student_id)
    invite, code = invitations.create(services.PARENT_CODE, by=request.user, target=student)
    audit.record(request, Action.PARENT_CODE_MADE, student)
    join_url = request.build_absolute_uri(reverse("reports:join"))
    return render(
        request,
        "reports/invite_slip.html",
        {"student": student, "invite": invite, "code": code, "join_url": join_url},
    )


@login_required
@require_POST
def invite_revoke(request: HttpRequest, invite_id: int) -> HttpResponse:
    invite = report_permissions.parent_invite_get(request.user, invite_id)
    if invitations.withdraw(services.PARENT_CODE, invite, by=request.user):
        audit.record(request, Action.PARENT_CODE_WITHDRAWN, invite.student)
    messages.success(request, _("The code can no longer be used."))
    return redirect("reports:student", student_id=invite.student_id)


@login_required
@require_POST
def link_revoke(request: HttpRequest, link_id: int) -> HttpResponse:
    link = permissions.parent_link_get(request.user, link_id)
    services.parent_link_revoke(link=link, by=request.user)
    audit.record(request, Action.PARENT_LINK_REVOKED, link.student)
    messages.success(
        request, _("This parent no longer sees %(name)s's reports.") % {"name": link.student.name}
    )
    return redirect("reports:student", student_id=link.student_id)


# --- privacy (school admins) ------------------------------------------------------------------


def _admin_student(request: HttpRequest, student_id: int):
    if not permissions.is_school_admin(request.user):
        raise Http404("school admins only")
    return permissions.staff_student_get(request.user, student_id)


@login_required
def student_export(request: HttpRequest, student_id: int) -> HttpResponse:
    """Everything stored about a child, as a JSON download."""
    student = _admin_student(request, student_id)
    data = selectors.student_export(student=student)
    response = HttpResponse(
        json.dumps(data, ensure_ascii=False, indent=2, default=str),
        content_type="application/json; charset=utf-8",
    )
    name = slugify(f"{student.name}-{timezone.localdate()}") or "student"
    response["Content-Disposition"] = f'attachment; filename="{name}.json"'
    audit.record(request, Action.EXPORT_DATA, student)
    return response


@login_required
def student_erase(request: HttpRequest, student_id: int) -> HttpResponse:
    """Erase a child after the admin types their name: plays, reports, links, everything."""
    student = _admin_student(request, student_id)
    error = ""
    if request.method == "POST":
        if request.POST.get("confirm_name", "").strip() != student.name:
            error = _("Type the student's name exactly as shown to confirm.")
        else:
            classroom_id = student.classroom_id
            name, target = student.name, audit.about(student)
            try:
                services.student_erase(student=student, by=request.user)
            except ValidationError as exc:
                error = _error_text(exc)
            else:
                audit.record(request, Action.STUDENT_ERASED, target)
                messages.success(
                    request, _("%(name)s and all their data were erased.") % {"name": name}
                )
                return redirect("reports:class", classroom_id=classroom_id)
    return render(
        request,
        "reports/erase_confirm.html",
        {"student": student, "error": error},
        status=400 if error else 200,
    )
