"""The school admin's pages (namespace "schooladmin"): where a school admin manages the school.

Every page is for the admin of one school and reads only that school's rows: accounts through
permissions.accounts_of_school, classes and students through permissions.readable; a foreign
id is a 404 like a missing one. Class pages themselves (create, rename, give to a teacher) are
the classrooms pages, which already let an admin pick the teachers.
"""

from __future__ import annotations

from dataclasses import asdict
from functools import wraps

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Q, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_POST

from kavet_site import auth_throttle

from .. import audit, permissions, rollover, roster, services
from ..audit.models import Action
from ..models import Classroom, Programme, Student, User
from ..retention import kept_until, retention_years, site_retention_years
from . import services as admin_services

SIGNED_MAX_AGE = 3600  # a preview is confirmed within the hour, or previewed again


def school_admin_required(view):
    """The admin of a school; anyone else is turned away (a 403, as for any staff page)."""

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not permissions.is_school_admin(request.user):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return wrapper


def _salt(request: HttpRequest, what: str) -> str:
    return f"kavet.schooladmin.{what}:{request.user.school_id}:{request.user.pk}"


def _staff(request: HttpRequest):
    return (
        permissions.accounts_of_school(request.user.school_id)
        .filter(role__in=permissions.STAFF_ROLES)
        .order_by("last_name", "first_name", "username")
    )


def _years(request: HttpRequest) -> list[str]:
    years = set(
        Classroom.objects.filter(school_id=request.user.school_id).values_list(
            "school_year", flat=True
        )
    )
    years.add(services.school_year_current())
    return sorted(years, reverse=True)


# --- home ------------------------------------------------------------------------------------


@school_admin_required
def home(request: HttpRequest) -> HttpResponse:
    school = request.user.school
    return render(
        request,
        "schooladmin/home.html",
        {
            "school": school,
            "n_staff": _staff(request).filter(is_active=True).count(),
            "n_classes": Classroom.objects.filter(school=school, archived_at__isnull=True).count(),
            "n_students": Student.objects.filter(
                classroom__school=school, classroom__archived_at__isnull=True
            ).count(),
            "undoable": rollover.rollover_undoable(school),
            "tab": "home",
        },
    )


# --- staff -----------------------------------------------------------------------------------


def _signin_notes(request: HttpRequest, staff: list[User]) -> dict:
    """Wrong passwords of the school's staff in the cool-off, who is paused, and the floods
    from an address the staff sign in from (or were tried from), in the words of the page."""
    names = [u.username for u in staff]
    tries = auth_throttle.live_attempts().filter(username__in=names)
    per_name = {
        row["username"]: row
        for row in tries.values("username").annotate(
            failures=Sum("failures_since_start"), addresses=Count("ip_address", distinct=True)
        )
    }
    paused = set(
        auth_throttle.paused_attempts()
        .filter(username__in=names)
        .values_list("username", flat=True)
    )
    addresses = {
        *auth_throttle.staff_addresses(request.user.school_id),
        *tries.values_list("ip_address", flat=True),
    }
    return {
        "per_name": per_name,
        "paused": paused,
        "floods": list(auth_throttle.floods_from(addresses)[:10]),
    }


@school_admin_required
def staff(request: HttpRequest) -> HttpResponse:
    accounts = list(_staff(request))
    notes = _signin_notes(request, accounts)
    rows = [
        {
            "account": a,
            "failures": notes["per_name"].get(a.username, {}).get("failures") or 0,
            "addresses": notes["per_name"].get(a.username, {}).get("addresses") or 0,
            "paused": a.username in notes["paused"],
        }
        for a in accounts
    ]
    return render(
        request,
        "schooladmin/staff.html",
        {
            "rows": rows,
            "floods": notes["floods"],
            "names_limit": auth_throttle.client_limit(),
            "own_failures": auth_throttle.FLOOD_OWN_FAILURES,
            "reset_link": request.session.pop("kavet_reset_link", None),
            "tab": "staff",
        },
    )


def _staff_get(request: HttpRequest, pk: int) -> User:
    return permissions.get_manageable_or_404(request.user, _staff(request), what="account", pk=pk)


@require_POST
@school_admin_required
def staff_active(request: HttpRequest, pk: int) -> HttpResponse:
    account = _staff_get(request, pk)
    active = request.POST.get("active") == "1"
    try:
        admin_services.staff_set_active(account=account, active=active, by=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        audit.record(
            request, Action.STAFF_REACTIVATED if active else Action.STAFF_DEACTIVATED, account
        )
        name = account.get_full_name() or account.username
        messages.success(
            request,
            (_("%(name)s can sign in again.") if active else _("%(name)s can no longer sign in."))
            % {"name": name},
        )
    return redirect("schooladmin:staff")


@require_POST
@school_admin_required
def staff_password(request: HttpRequest, pk: int) -> HttpResponse:
    account = _staff_get(request, pk)
    try:
        link = admin_services.staff_password_link(
            account=account, by=request.user, base_url=request.build_absolute_uri("/")
        )
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        audit.record(request, Action.STAFF_PASSWORD_LINK, account)
        request.session["kavet_reset_link"] = {
            "name": account.get_full_name() or account.username,
            "link": link,
        }
    return redirect("schooladmin:staff")


@require_POST
@school_admin_required
def staff_unlock(request: HttpRequest, pk: int) -> HttpResponse:
    account = _staff_get(request, pk)
    admin_services.staff_signin_unlock(account=account, by=request.user)
    audit.record(request, Action.STAFF_SIGNIN_UNLOCKED, account)
    messages.success(
        request,
        _("%(name)s can sign in again from everywhere.")
        % {"name": account.get_full_name() or account.username},
    )
    return redirect("schooladmin:staff")


# --- classes ---------------------------------------------------------------------------------


@school_admin_required
def classes(request: HttpRequest) -> HttpResponse:
    rows = (
        permissions.readable(request.user, Classroom)
        .annotate(n_students=Count("students"))
        .prefetch_related("teachers")
        .order_by("-school_year", "archived_at", "name")
    )
    return render(request, "schooladmin/classes.html", {"classes": rows, "tab": "classes"})


# --- settings --------------------------------------------------------------------------------


class SettingsForm(forms.Form):
    programme = forms.ChoiceField(label=gettext_lazy("School programme"), choices=Programme.choices)
    time_zone = forms.ChoiceField(label=gettext_lazy("Time zone"), choices=())
    retention_years = forms.TypedChoiceField(
        label=gettext_lazy("Keep play data after its school year"), coerce=int, choices=()
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        programme = self.data.get("programme") or self.initial.get("programme") or ""
        self.fields["time_zone"].choices = admin_services.zone_choices(programme)
        site = site_retention_years()
        self.fields["retention_years"].choices = [
            (n, ngettext("%(n)d school year", "%(n)d school years", n) % {"n": n})
            for n in range(site + 1)
        ]
        self.fields["retention_years"].help_text = _(
            "At most %(max)s on this site. Games, plays and weekly reports older than this are "
            "erased every week; children, classes and levels are kept until you erase them."
        ) % {"max": site}


def _settings_audited(request, school, before: dict, after: dict) -> None:
    """One row per kind of change: the programme, the keeping of play data, the time zone."""
    for field, action in (
        ("programme", Action.PROGRAMME_CHANGED),
        ("retention_years", Action.RETENTION_CHANGED),
        ("time_zone", Action.SCHOOL_CHANGED),
    ):
        if after[field] != before[field]:
            audit.record(
                request, action, school, changed=field, old=before[field], new=after[field]
            )


@school_admin_required
def school_settings(request: HttpRequest) -> HttpResponse:
    school = request.user.school
    form = SettingsForm(
        request.POST or None,
        initial={
            "programme": school.programme,
            "time_zone": school.time_zone,
            "retention_years": retention_years(school),
        },
    )
    if request.method == "POST" and form.is_valid():
        before = {
            "programme": school.programme,
            "time_zone": school.time_zone,
            "retention_years": retention_years(school),
        }
        try:
            admin_services.school_settings_set(school=school, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            for message in exc.messages:
                form.add_error(None, message)
        else:
            _settings_audited(request, school, before, form.cleaned_data)
            messages.success(request, _("The school's settings are saved."))
            return redirect("schooladmin:settings")
    year = services.school_year_current()
    return render(
        request,
        "schooladmin/settings.html",
        {
            "form": form,
            "school": school,
            "kept_until": kept_until(year, school),
            "year": year,
            "tab": "settings",
        },
    )


# --- data ------------------------------------------------------------------------------------


@school_admin_required
def data(request: HttpRequest) -> HttpResponse:
    query = (request.GET.get("q") or "").strip()[:40]
    students = Student.objects.none()
    if query:
        students = (
            permissions.manageable(request.user, Student)
            .filter(Q(name__icontains=query) | Q(classroom__name__icontains=query))
            .select_related("classroom")
            .order_by("classroom__school_year", "classroom__name", "name")[:100]
        )
    return render(
        request,
        "schooladmin/data.html",
        {
            "years": _years(request),
            "year": services.school_year_current(),
            "query": query,
            "students": students,
            "tab": "data",
        },
    )


@school_admin_required
def roster_export(request: HttpRequest) -> HttpResponse:
    year = request.GET.get("year") or services.school_year_current()
    try:
        year = services.school_year_check(year)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("schooladmin:data")
    body = roster.roster_export_csv(school=request.user.school, school_year=year)
    audit.record(request, Action.ROSTER_EXPORTED, request.user.school, year=year)
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    name = slugify(f"{request.user.school.slug}-{year}-roster") or "roster"
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    return response


# --- roster import ---------------------------------------------------------------------------


class ImportForm(forms.Form):
    school_year = forms.ChoiceField(label=gettext_lazy("School year"), choices=())
    file = forms.FileField(
        label=gettext_lazy("A spreadsheet saved as CSV or text"),
        required=False,
        help_text=gettext_lazy(
            "UTF-8, Excel's “Unicode text” or Windows CSV; separated by commas, semicolons or tabs."
        ),
    )
    paste = forms.CharField(
        label=gettext_lazy("Or paste the cells, heading line included"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
    )

    def __init__(self, *args, years: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["school_year"].choices = [(y, y) for y in years]


def _import_page(request, form, *, plan=None, payload="", error="", status=200) -> HttpResponse:
    return render(
        request,
        "schooladmin/import.html",
        {
            "form": form,
            "plan": plan,
            "payload": payload,
            "error": error,
            "headings": roster.export_headings(),
            "max_rows": roster.MAX_ROWS,
            "tab": "import",
        },
        status=status,
    )


def _preview(request, form, rows, school_year) -> HttpResponse:
    plan = roster.roster_plan(school=request.user.school, school_year=school_year, rows=rows)
    payload = signing.dumps(
        {"year": school_year, "rows": [asdict(r) for r in rows], "digest": plan.digest()},
        salt=_salt(request, "roster"),
        compress=True,
    )
    return _import_page(request, form, plan=plan, payload="" if plan.errors else payload)


@school_admin_required
def roster_import(request: HttpRequest) -> HttpResponse:
    years = _years(request)
    if request.method != "POST":
        form = ImportForm(years=years, initial={"school_year": services.school_year_current()})
        return _import_page(request, form)
    form = ImportForm(request.POST, request.FILES, years=years)
    if request.POST.get("confirm"):
        return _confirm(request, form)
    if not form.is_valid():
        return _import_page(request, form, status=400)
    upload, paste = form.cleaned_data["file"], form.cleaned_data["paste"]
    try:
        if upload is not None:
            if upload.size > roster.MAX_BYTES:
                roster.roster_read(data=b"\0" * (roster.MAX_BYTES + 1))  # the size message
            rows = roster.roster_read(data=upload.read(roster.MAX_BYTES + 1))
        elif paste.strip():
            rows = roster.roster_read(text=paste)
        else:
            raise roster.RosterRefused(_("Choose a file or paste the cells."), code="empty")
    except roster.RosterRefused as exc:
        return _import_page(request, form, error=" ".join(exc.messages), status=400)
    return _preview(request, form, rows, form.cleaned_data["school_year"])


def _confirm(request: HttpRequest, form) -> HttpResponse:
    try:
        signed = signing.loads(
            request.POST.get("payload", ""), salt=_salt(request, "roster"), max_age=SIGNED_MAX_AGE
        )
        rows = [roster.Row(**r) for r in signed["rows"]]
        year, digest = signed["year"], signed["digest"]
    except (signing.BadSignature, KeyError, TypeError):
        form = ImportForm(years=_years(request))
        return _import_page(
            request,
            form,
            error=_("This preview is too old or was changed. Send the file again."),
            status=400,
        )
    try:
        plan = roster.roster_apply(
            school=request.user.school, school_year=year, rows=rows, digest=digest, by=request.user
        )
    except roster.RosterStale as exc:
        messages.error(request, " ".join(exc.messages))
        return _preview(
            request, ImportForm(years=_years(request), initial={"school_year": year}), rows, year
        )
    except ValidationError as exc:
        form = ImportForm(years=_years(request))
        return _import_page(request, form, error=" ".join(exc.messages), status=400)
    audit.record(
        request,
        Action.ROSTER_IMPORTED,
        request.user.school,
        year=year,
        new=plan.count("new"),
        updated=plan.count("updated"),
        unchanged=plan.count("unchanged"),
    )
    messages.success(
        request,
        _("Imported: %(new)s new, %(updated)s updated, %(unchanged)s unchanged.")
        % {
            "new": plan.count("new"),
            "updated": plan.count("updated"),
            "unchanged": plan.count("unchanged"),
        },
    )
    return redirect("schooladmin:import")


# --- the year's rollover ---------------------------------------------------------------------


def _choices(request: HttpRequest, plan) -> dict[int, tuple[str, bool]]:
    return {
        m.classroom_id: (
            request.POST.get(f"name-{m.classroom_id}", m.new_name)[:200],
            request.POST.get(f"leaves-{m.classroom_id}") == "1",
        )
        for m in plan.moves
    }


@school_admin_required
def year_rollover(request: HttpRequest) -> HttpResponse:
    school = request.user.school
    from_year = rollover.rollover_from_year(
        school, request.POST.get("from") or request.GET.get("from")
    )
    ctx = {
        "tab": "year",
        "undoable": rollover.rollover_undoable(school),
        "from_year": from_year,
        "years": rollover.rollover_years(school),
    }
    if from_year is None:
        return render(request, "schooladmin/rollover.html", ctx)
    plan = rollover.rollover_propose(school=school, from_year=from_year)
    payload, status = "", 200
    if request.method == "POST" and request.POST.get("confirm"):
        try:
            signed = signing.loads(
                request.POST.get("payload", ""),
                salt=_salt(request, "rollover"),
                max_age=SIGNED_MAX_AGE,
            )
            choices = {int(k): (v[0], bool(v[1])) for k, v in signed["choices"].items()}
            done = rollover.rollover_apply(
                school=school,
                from_year=signed["from_year"],
                choices=choices,
                digest=signed["digest"],
                by=request.user,
            )
        except (signing.BadSignature, KeyError, TypeError, ValueError, IndexError):
            messages.error(request, _("This preview is too old or was changed. Preview again."))
            return redirect("schooladmin:year")
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
            return redirect("schooladmin:year")
        audit.record(request, Action.YEAR_ROLLED_OVER, school, to_year=done.to_year)
        messages.success(
            request,
            _("The classes moved up to %(year)s. You can undo it until midnight.")
            % {"year": done.to_year},
        )
        return redirect("schooladmin:year")
    if request.method == "POST":
        choices = _choices(request, plan)
        plan = rollover.rollover_plan(school=school, from_year=from_year, choices=choices)
        if plan.errors:
            status = 400
        else:
            payload = signing.dumps(
                {
                    "from_year": from_year,
                    "choices": {str(k): [v[0], v[1]] for k, v in choices.items()},
                    "digest": plan.digest(),
                },
                salt=_salt(request, "rollover"),
            )
    ctx.update(plan=plan, payload=payload, previewed=request.method == "POST")
    return render(request, "schooladmin/rollover.html", ctx, status=status)


@require_POST
@school_admin_required
def year_rollover_undo(request: HttpRequest) -> HttpResponse:
    try:
        done = rollover.rollover_undo(school=request.user.school, by=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        audit.record(request, Action.YEAR_ROLLOVER_UNDONE, request.user.school, year=done.from_year)
        messages.success(
            request,
            _("Undone: the classes of %(year)s are back as they were.") % {"year": done.from_year},
        )
    return redirect("schooladmin:year")
