"""Site-wide pages: the home page that sends each role to its place, the privacy page, and the
400 / 403 / 404 / 500 pages (styled, in the user's language, with a way back for who they are)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import NoReverseMatch, reverse
from django.utils import translation

log = logging.getLogger("kavet_site.views")

# Where each role lands after signing in; the apps register these URL names.
ROLE_HOME = {
    "teacher": "classrooms:teacher_home",
    "school_admin": "classrooms:teacher_home",
    "student": "games:student_home",
    "parent": "reports:parent_home",
}

# A signed-out child on a tablet: these cookies (games.signin) or these paths mean a tablet.
TABLET_COOKIES = ("kavet_class", "kavet_tablet")
TABLET_PATHS = ("/play/", "/me/", "/tablet/", "/how-to-play/")


def home(request: HttpRequest) -> HttpResponse:
    user = request.user
    if user.is_authenticated:
        target = ROLE_HOME.get(getattr(user, "role", ""))
        if target:
            try:
                return redirect(reverse(target))
            except NoReverseMatch:
                pass
    return render(request, "home.html")


def privacy(request: HttpRequest) -> HttpResponse:
    """What the platform keeps, why, for how long, who sees it; for parents and teachers."""
    years = int(getattr(settings, "KAVET_RETENTION_YEARS", 2))
    return render(request, "privacy.html", {"retention_years": years})


def accessibility(request: HttpRequest) -> HttpResponse:
    """What is checked for people who use the site with a screen reader, a keyboard or a phone,
    and how (tests/e2e: axe-core and keyboard-only browser tests)."""
    return render(request, "accessibility.html")


# --- error pages -----------------------------------------------------------------------------


def _url(name: str, default: str) -> str:
    try:
        return reverse(name)
    except NoReverseMatch:
        return default


def _role(request: HttpRequest) -> str:
    """The signed-in user's role, or "" — never fails (a 400 may come before the user is known,
    a broken session must not stop the error page)."""
    try:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            return getattr(user, "role", "") or "user"
    except Exception:  # noqa: BLE001 - the error page must render whatever went wrong
        log.warning("error page: the user could not be read", exc_info=True)
    return ""


def _on_tablet(request: HttpRequest, role: str) -> bool:
    if role == "student":
        return True
    if role:
        return False
    return any(c in request.COOKIES for c in TABLET_COOKIES) or request.path.startswith(
        TABLET_PATHS
    )


def _error_context(request: HttpRequest, status: int, *, use_user: bool = True) -> dict:
    role = _role(request) if use_user else ""
    return {
        "status": status,
        "fragment": "HTTP_HX_REQUEST" in request.META,
        "signed_in": bool(role),
        "tablet": _on_tablet(request, role),
        "home_url": _url("home", "/"),
        "login_url": _url("login", "/login/"),
        "tablet_url": _url("games:tablet_signin", "/tablet/"),
        "privacy_url": _url("privacy", "/privacy/"),
    }


def _error_response(request: HttpRequest, status: int, *, use_user: bool = True) -> HttpResponse:
    template = f"{status}.html"
    try:
        language = translation.get_language_from_request(request)
    except Exception:  # noqa: BLE001 - a broken header must not stop the error page
        language = None
    with translation.override(language or translation.get_language()):
        try:
            body = render_to_string(template, _error_context(request, status, use_user=use_user))
        except Exception:  # noqa: BLE001 - last resort: the page with no context at all
            log.exception("error page %s: rendering with context failed", status)
            body = render_to_string(template, {})
        response = HttpResponse(body, status=status, content_type="text/html; charset=utf-8")
        response["Content-Language"] = translation.get_language()
    response["Vary"] = "Accept-Language, Cookie"
    return response


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_response(request, 400, use_user=False)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_response(request, 403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_response(request, 404)


def server_error(request: HttpRequest) -> HttpResponse:
    # No user: reading it may need the database, which may be what just failed.
    return _error_response(request, 500, use_user=False)
