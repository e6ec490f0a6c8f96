"""Until the second step of a staff sign-in is done, the session reaches only that step."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.http import urlencode
from django_otp import DEVICE_ID_SESSION_KEY

from classrooms import permissions

from .services import SESSION_FLAG, SET_UP, VERIFY, admins_must_set_up

# Where a session that owes its second step may still go: that step, signing out, the language.
OPEN_PATHS = ("/logout/", "/i18n/", "/static/", "/healthz")


class SecondFactorMiddleware:
    """A session marked "verify" (a code owed) or "setup" (a school admin whose school requires a
    second factor, without one) is sent to that page from every other one. An admin not yet
    verified is checked on each request, so a rule turned on reaches sessions already open.

    Sync only, placed next to games.middleware.StudentIdleMiddleware (settings.MIDDLEWARE says
    why). A session with nothing owed costs one session read and no query, but a school admin's
    not verified by a second factor: one indexed look-up of the school's rule per request.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        owed = self._owed(request)
        if owed is None:
            return self.get_response(request)
        target = reverse("twofactor:verify" if owed == VERIFY else "twofactor:setup")
        path = request.path_info
        if path == target or path.startswith(OPEN_PATHS):
            return self.get_response(request)
        url = f"{target}?{urlencode({'next': request.get_full_path()})}"
        if getattr(request, "htmx", False):
            response = HttpResponse(status=204)
            response["HX-Redirect"] = url
            return response
        return HttpResponseRedirect(url)

    @staticmethod
    def _owed(request: HttpRequest) -> str | None:
        session = getattr(request, "session", None)
        if session is None:
            return None
        flag = session.get(SESSION_FLAG)
        if flag in (VERIFY, SET_UP):
            return flag
        user = request.user
        if (
            session.get(DEVICE_ID_SESSION_KEY) is None
            and permissions.is_school_admin(user)
            and admins_must_set_up(user)
        ):
            session[SESSION_FLAG] = SET_UP
            return SET_UP
        return None
