"""The unsubscribe link of the weekly email (RFC 8058 one-click too) and the parent's on/off page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from classrooms import permissions

from . import selectors, services


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
