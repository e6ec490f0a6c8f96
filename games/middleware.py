"""Tablet middleware: unchanged table polls answered early; idle students signed out of shared tablets."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import timedelta

from django.contrib import messages
from django.contrib.auth import logout
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from games.models import Game, Seat
from games.signin import SEEN_KEY, SESSION_KEY

# Background polls (the home page watching for a game) are not a child's activity.
POLL_HEADER = "HTTP_X_KAVET_POLL"
# Write the last-activity time at most this often: a session write on every poll costs.
SEEN_RESOLUTION = 30
TABLE_PREFIX = "/play/"
# The push streams (games/stream.py): an open EventSource is the browser's doing, not the child's.
PUSH_PREFIX = "/push/"
# The URL of games:table (tests/games check that it matches what reverse() gives).
TABLE_POLL_PATH = re.compile(r"^/play/(\d+)/$")
# games:table_move's.
TABLE_MOVE_PATH = re.compile(r"^/play/\d+/move/$")
# A game waiting this long to start no longer keeps anyone signed in.
OPEN_GAME_HOURS = 6


def in_open_game(user_id: int, idle_seconds: float = 0) -> bool:
    """At a table now, or at one that ended within the idle time (the end screen is activity)."""
    now = timezone.now()
    return Seat.objects.filter(
        Q(
            game__status__in=(Game.Status.SETUP, Game.Status.RUNNING, Game.Status.PAUSED),
            game__created_at__gte=now - timedelta(hours=OPEN_GAME_HOURS),
        )
        | Q(game__finished_at__gte=now - timedelta(seconds=idle_seconds)),
        student__user_id=user_id,
        bot="",
    ).exists()


# The pages a child sees on a tablet (sign-in, home, table, "Learn to play"), signed in or not.
CHILD_PREFIXES = ("/tablet/", "/me/", TABLE_PREFIX)


def child_page_not_stored(
    request: HttpRequest, response: HttpResponse, *, signed_in: bool
) -> HttpResponse:
    """A child's page is never shown again from the browser's cache or its back-forward cache
    (a stale home or table, issue 40): "no-store", unless the view chose its own caching."""
    if response.has_header("Cache-Control"):
        return response
    if not response.get("Content-Type", "").startswith("text/html"):
        return response
    if signed_in or request.path.startswith(CHILD_PREFIXES):
        response["Cache-Control"] = "no-store"
    return response


class StudentIdleMiddleware:
    """Reads only the session on the common path: no database query unless the idle time passed."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if POLL_HEADER in request.META and request.path.startswith(TABLE_PREFIX):
            # A table poll: the child is at a game. It must not even load the session (speed).
            return self.get_response(request)
        if request.method == "POST" and TABLE_MOVE_PATH.match(request.path_info):
            # A move: the child is at a game, where in_open_game() keeps them signed in (and
            # for the idle time after it ends), so neither the check nor the stamp is needed;
            # the game is the record of that activity. Stamped, nearly every move wrote the
            # session (an UPDATE and the cache's copy; a child moves about once a minute or
            # two, less often than SEEN_RESOLUTION), and once the game outlasted the idle time
            # every move asked in_open_game() (issue 38: 10,000 tablets). A move on a game
            # that is over is refused by its view; the next page does the check.
            return child_page_not_stored(request, self.get_response(request), signed_in=True)
        session = getattr(request, "session", None)
        info = session.get(SESSION_KEY) if session is not None else None
        if info:
            now = time.time()
            seen = session.get(SEEN_KEY, now)
            idle = max(1, int(info.get("idle") or 10)) * 60
            user_id = session.get("_auth_user_id")
            if now - seen > idle and not (user_id and in_open_game(int(user_id), idle)):
                logout(request)
                target = reverse("games:tablet_signin")
                if request.headers.get("HX-Request"):
                    response = HttpResponse(status=204)
                    response["HX-Redirect"] = target
                    return response
                messages.info(
                    request, _("You were signed out because the tablet was not used for a while.")
                )
                return redirect(target)
            background = POLL_HEADER in request.META or request.path.startswith(PUSH_PREFIX)
            if not background and now - seen > SEEN_RESOLUTION:
                session[SEEN_KEY] = now
        return child_page_not_stored(request, self.get_response(request), signed_in=bool(info))


class TablePollMiddleware:
    """Answers a table poll that finds nothing new (204) before sessions, users, CSRF and the rest.

    600 tablets poll every 2 s: the unchanged poll is the hottest path of the site, and the
    signed token in its URL already says which game the page was allowed to show. One query
    (games.polling), never a write to a game: a due move makes the answer "changed", and the
    view applies it through the one service.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        from games.polling import poll_unchanged

        self.get_response = get_response
        self.poll_unchanged = poll_unchanged

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if (
            request.method == "GET"
            and POLL_HEADER in request.META
            and "HTTP_HX_REQUEST" in request.META
            and "v" in request.GET
        ):
            match = TABLE_POLL_PATH.match(request.path_info)
            if match:
                if self.poll_unchanged(request, int(match[1])):
                    return HttpResponse(status=204)
                request.kavet_poll_checked = True  # the view need not look again
        return self.get_response(request)
