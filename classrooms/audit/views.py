"""The school admin's activity page: their own school's log, filtered and a page at a time."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django import forms
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from classrooms import permissions
from classrooms.models import Programme, User
from classrooms.selectors import school_tz

from . import person_name
from .models import Action, AuditEvent

PER_PAGE = 50


class ActivityFilter(forms.Form):
    action = forms.ChoiceField(label=gettext_lazy("What"), required=False)
    person = forms.TypedChoiceField(
        label=gettext_lazy("Who"), required=False, coerce=int, empty_value=None
    )
    since = forms.DateField(
        label=gettext_lazy("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label=gettext_lazy("To"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def __init__(self, *args, people: list[User], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["action"].choices = [("", _("Everything"))] + list(Action.choices)
        self.fields["person"].choices = [("", _("Everyone"))] + [
            (p.pk, person_name(p)) for p in people
        ]

    def clean(self):
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            raise forms.ValidationError(_("The first day comes after the last day."))
        return data


def school_events(user) -> QuerySet[AuditEvent]:
    """The rows a school admin may read: their own school's, every one; nobody else reads any."""
    if not permissions.is_school_admin(user):
        return AuditEvent.objects.none()
    return AuditEvent.objects.filter(school_id=user.school_id)


def _filtered(events: QuerySet[AuditEvent], data: dict, tz) -> QuerySet[AuditEvent]:
    if data.get("action"):
        events = events.filter(action=data["action"])
    if data.get("person") is not None:
        events = events.filter(actor_id=data["person"])
    if data.get("since"):
        events = events.filter(at__gte=datetime.combine(data["since"], time(), tzinfo=tz))
    if data.get("until"):
        day_after = data["until"] + timedelta(days=1)
        events = events.filter(at__lt=datetime.combine(day_after, time(), tzinfo=tz))
    return events


@permissions.admin_required
def activity(request: HttpRequest) -> HttpResponse:
    user = request.user
    people = list(
        permissions.accounts_of_school(user.school_id)
        .filter(role__in=permissions.STAFF_ROLES)
        .order_by("last_name", "first_name", "username")
    )
    form = ActivityFilter(request.GET or None, people=people)
    tz = school_tz(user.school)
    events = school_events(user)
    if form.is_bound:
        events = _filtered(events, form.cleaned_data, tz) if form.is_valid() else events.none()
    page = Paginator(events, PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "audit/activity.html",
        {
            "form": form,
            "page": page,
            "rows": [(e, who(e), target_kind(e), describe(e)) for e in page],
            "query": query.urlencode(),
            "tz": tz,
        },
    )


TARGET_KINDS = {
    "student": gettext_lazy("student"),
    "classroom": gettext_lazy("class"),
    "user": gettext_lazy("account"),
    "school": gettext_lazy("school"),
    "teacherinvite": gettext_lazy("teacher invitation"),
    "parentinvite": gettext_lazy("parent's code"),
    "parentlink": gettext_lazy("parent's link"),
}


CHANGES = {
    "added": gettext_lazy("added"),
    "changed": gettext_lazy("changed"),
    "deleted": gettext_lazy("deleted"),
}

# The settings a row may name, in the admin's words (any other is shown as it was recorded).
FIELD_WORDS = {
    "name": gettext_lazy("name"),
    "student_idle_minutes": gettext_lazy("sign-out after idle minutes"),
    "read_aloud": gettext_lazy("read aloud on the tablets"),
    "time_zone": gettext_lazy("time zone"),
    "slug": gettext_lazy("short name"),
    "programme": gettext_lazy("school programme"),
    "admins_need_second_factor": gettext_lazy("school admins must use a second factor"),
}


def _value_words(event: AuditEvent, value) -> str:
    if isinstance(value, bool):
        return str(_("yes") if value else _("no"))
    if event.action == Action.PROGRAMME_CHANGED and value in Programme.values:
        return str(Programme(value).label)
    return str(value)


# Details that each read as one phrase: key → its words (in the order shown).
PHRASES = (
    ("count", lambda v: _("%(count)s in all") % {"count": v}),
    ("old_name", lambda v: _("was “%(name)s”") % {"name": v}),
    ("students", lambda v: ", ".join(map(str, v))),
    ("before", lambda v: _("dated before %(date)s") % {"date": v}),
    ("week", lambda v: _("week of %(week)s") % {"week": v}),
    ("second_factor", lambda v: str(_("with the second factor"))),
    ("left", lambda v: _("%(left)s recovery codes left") % {"left": v}),
)


def _changes(event: AuditEvent, d: dict) -> list[str]:
    """What changed: the fields, a class left for another, a value before and after."""
    parts = []
    if d.get("from_class") or d.get("to_class"):
        parts.append(
            _("from %(old)s to %(new)s") % {"old": d.get("from_class"), "new": d.get("to_class")}
        )
    if d.get("changed"):
        fields = ", ".join(str(FIELD_WORDS.get(f, f)) for f in d["changed"])
        parts.append(_("changed: %(fields)s") % {"fields": fields})
    if d.get("old") is not None:
        old, new = _value_words(event, d["old"]), _value_words(event, d.get("new"))
        parts.append(_("from %(old)s to %(new)s") % {"old": old, "new": new})
    elif d.get("new") is not None:
        parts.append(_("now: %(new)s") % {"new": _value_words(event, d["new"])})
    return parts


def describe(event: AuditEvent) -> str:
    """The row's details in plain words (the columns say who, when, what and on whom)."""
    d = event.details or {}
    parts = [str(CHANGES[d["change"]])] if d.get("change") in CHANGES else []
    for key, words in PHRASES:
        value = d.get(key)
        if not (value is None or value is False or value == "" or value == []):
            parts.append(words(value))
    return "; ".join(parts + _changes(event, d))


def who(event: AuditEvent) -> str:
    if event.actor_name:
        return event.actor_name
    if event.action == Action.RETENTION_ERASED:
        return str(_("the weekly erase"))
    return str(_("nobody signed in"))


def target_kind(event: AuditEvent) -> str:
    return str(TARGET_KINDS.get(event.target_type, event.target_type))
