"""The unsubscribe link of the weekly email (RFC 8058 one-click too) and the parent's on/off page."""

from __future__ import annotations

from csp.decorators import csp_replace
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from classrooms import audit, permissions
from classrooms.audit.models import Action
from classrooms.models import User

from . import selectors, services
from .models import OutboxEmail, SchoolEmailSchedule


@csrf_exempt  # the signed token is the credential; mail clients post without a CSRF token
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET: a page with one button; POST (that button, or a mail client's one-click
    "List-Unsubscribe=One-Click"): the weekly email is switched off. In the parent's language."""
    parent = services.parent_from_token(token)
    if parent is None:
        return render(request, "reports/mail/unsubscribe_invalid.html", status=400)
    one_click = request.POST.get("List-Unsubscribe")
    if request.method == "POST" and one_click is not None and one_click != "One-Click":
        return render(request, "reports/mail/unsubscribe_invalid.html", status=400)
    with translation.override(parent.language or translation.get_language()):
        if request.method == "GET":
            return render(
                request,
                "reports/mail/unsubscribe_confirm.html",
                {"token": token, "wanted": selectors.weekly_email_wanted(parent)},
            )
        services.email_preference_set(parent=parent, weekly=False)
        response = render(request, "reports/mail/unsubscribe_done.html")
        response["Content-Language"] = translation.get_language()
        return response


@login_required
@require_http_methods(["GET", "POST"])
def email_settings(request: HttpRequest) -> HttpResponse:
    """A parent switches the weekly email on or off."""
    if not permissions.is_parent(request.user):
        return redirect("home")
    if request.method == "POST":
        choice = request.POST.get("weekly")
        if choice not in ("on", "off"):
            return render(
                request,
                "reports/mail/settings.html",
                {
                    "wanted": selectors.weekly_email_wanted(request.user),
                    "email": request.user.email,
                },
                status=400,
            )
        services.email_preference_set(parent=request.user, weekly=choice == "on")
        messages.success(
            request,
            _("Weekly email switched on.") if choice == "on" else _("Weekly email switched off."),
        )
        return redirect("reports:mail:settings")
    return render(
        request,
        "reports/mail/settings.html",
        {"wanted": selectors.weekly_email_wanted(request.user), "email": request.user.email},
    )


# --- a school's staff: the email previewed and sent now; the school's schedule -------------------


def _staff_parent(request: HttpRequest, value: str | None) -> User | None:
    """The parent named by `value`, if the user may preview their email; None otherwise."""
    try:
        pk = int(value or "")
    except ValueError:
        return None
    return services.staff_parents(request.user).filter(pk=pk).first()


@permissions.staff_required
@require_http_methods(["GET", "POST"])
def email_preview(request: HttpRequest) -> HttpResponse:
    """A teacher or school admin picks a parent of their classes, sees this week's email as the
    parent will read it (in the parent's language) and may send it now."""
    parents = list(services.staff_parents(request.user))
    chosen = request.POST.get("parent") or request.GET.get("parent")
    parent = _staff_parent(request, chosen) if chosen else None
    if chosen and parent is None:
        raise Http404("no such parent")
    if request.method == "POST":
        if parent is None:
            raise Http404("no such parent")
        outcome = services.weekly_email_send_now(user=request.user, parent=parent)
        texts = {
            services.Outcome.SENT: _("The email was sent to %(email)s.") % {"email": parent.email},
            services.Outcome.NO_EMAIL: _("This parent's account has no email address."),
            services.Outcome.NOTHING: _(
                "No report of last week to send for this parent's children."
            ),
        }
        (messages.success if outcome == services.Outcome.SENT else messages.error)(
            request, texts.get(outcome, outcome)
        )
        return redirect(f"{reverse('reports:mail:preview')}?parent={parent.pk}")
    ctx = {"parents": parents, "parent": parent, "outbox": settings.DEBUG}
    if parent is not None:
        week_start, children = services.staff_email_children(user=request.user, parent=parent)
        ctx.update(week_start=week_start, children=children)
        if children:
            message = services.weekly_email_message(
                parent=parent, week_start=week_start, children=children
            )
            ctx.update(subject=message.subject, text=message.body)
    return render(request, "reports/mail/preview.html", ctx)


def _debug_only() -> None:
    if not settings.DEBUG:
        raise Http404("the outbox is for development only")


def outbox(request: HttpRequest) -> HttpResponse:
    """The emails kept by the development backend (outbox.OutboxBackend): DEBUG only."""
    _debug_only()
    return render(request, "reports/mail/outbox.html", {"emails": OutboxEmail.objects.all()[:100]})


def outbox_email(request: HttpRequest, email_id: int) -> HttpResponse:
    """One kept email, as its reader sees it: its HTML copy, links that work, and its text."""
    _debug_only()
    email = OutboxEmail.objects.filter(pk=email_id).first()
    if email is None:
        raise Http404("no such email")
    return render(request, "reports/mail/outbox_email.html", {"email": email})


def _framed_email(html: str) -> HttpResponse:
    """An email's HTML copy, framed by our own page only: no script runs in it (as in a mail
    client), its inline styles do."""
    response = HttpResponse(html)
    response["X-Frame-Options"] = "SAMEORIGIN"
    return response


_EMAIL_CSP = {
    "default-src": ["'none'"],
    "style-src": ["'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "frame-ancestors": ["'self'"],
    "base-uri": ["'none'"],
    "form-action": ["'none'"],
}


@csp_replace(_EMAIL_CSP)
def outbox_email_html(request: HttpRequest, email_id: int) -> HttpResponse:
    """The HTML copy alone, as a mail client shows it (the outbox page frames it)."""
    _debug_only()
    email = OutboxEmail.objects.filter(pk=email_id).first()
    if email is None or not email.html:
        raise Http404("no such email")
    return _framed_email(email.html)


@csp_replace(_EMAIL_CSP)
@permissions.staff_required
def email_preview_html(request: HttpRequest) -> HttpResponse:
    """The previewed email's HTML copy (the preview page frames it)."""
    parent = _staff_parent(request, request.GET.get("parent"))
    if parent is None:
        raise Http404("no such parent")
    week_start, children = services.staff_email_children(user=request.user, parent=parent)
    if not children:
        raise Http404("nothing to preview")
    message = services.weekly_email_message(parent=parent, week_start=week_start, children=children)
    return _framed_email(next(b for b, kind in message.alternatives if kind == "text/html"))


@permissions.admin_required
@require_http_methods(["GET", "POST"])
def school_email_settings(request: HttpRequest) -> HttpResponse:
    """The school admin's section of the school's settings for the weekly email: the day and
    hour (school time) it goes out each week (URL name reports:mail:school_settings)."""
    school = request.user.school
    if school is None:
        raise Http404("no school")
    schedule = selectors.school_schedule(school)
    errors = []
    if request.method == "POST":
        try:
            weekday, hour = int(request.POST.get("weekday", "")), int(request.POST.get("hour", ""))
        except ValueError:
            weekday = hour = -1
        if weekday not in dict(SchoolEmailSchedule.Weekday.choices):
            errors.append(_("Choose a day of the week."))
        if not 0 <= hour <= 23:
            errors.append(_("Choose an hour between 0 and 23."))
        if not errors:
            before = (schedule.weekday, schedule.hour)
            services.school_schedule_set(school=school, weekday=weekday, hour=hour)
            if before != (weekday, hour):
                audit.record(
                    request,
                    Action.SCHOOL_CHANGED,
                    school,
                    changed="weekly_email",
                    weekday=weekday,
                    hour=hour,
                )
            messages.success(request, _("The weekly email's day and hour are saved."))
            return redirect("reports:mail:school_settings")
    return render(
        request,
        "reports/mail/school_settings.html",
        {
            "school": school,
            "schedule": schedule,
            "weekdays": SchoolEmailSchedule.Weekday.choices,
            "hours": range(24),
            "errors": errors,
        },
        status=400 if errors else 200,
    )
