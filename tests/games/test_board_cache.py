"""The board rendered once per version and viewer (games.board_cache): never one seat's board to
another (R1.5: a seat sees its own hand only), a new version is a new board, and what differs per
request (the CSRF token, the clock, the countdown) is filled in per request. In-process and Redis."""

from __future__ import annotations

import os
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games import board_cache
from games.models import Game
from games.polling import poll_token
from tests.conftest import need_service

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true", "HTTP_X_KAVET_POLL": "1"}


@pytest.fixture(params=["locmem", "redis"])
def board_caches(request, settings):
    """Django's cache as the embedded default has it (in-process) and as production (Redis)."""
    if request.param == "redis":
        url = os.environ.get("REDIS_URL", "")
        need_service(bool(url), "Redis (REDIS_URL)")
        settings.CACHES = {
            "default": {
                "BACKEND": "kavet_site.cache.ResilientRedisCache",
                "LOCATION": url,
                "KEY_PREFIX": f"kavet-test-board-{os.getpid()}",
            }
        }
    else:
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    from django.core.cache import cache

    cache.clear()
    yield request.param
    cache.clear()


@pytest.fixture
def table(make_game, anna, bo):
    # A challenge window with a countdown, so the seconds left are filled in per request.
    return make_game([{"student": anna}, {"student": bo}], challenge_window=30)


def tablet(student) -> Client:
    c = Client()
    c.force_login(student.user)
    return c


def board(c: Client, game: Game, since: int) -> str:
    response = c.get(
        reverse("games:table", args=[game.pk]), {"v": since, "s": "running", "t": "x"}, **HX
    )
    assert response.status_code == 200
    return response.content.decode()


def move(c: Client, game: Game, seen: int, kind: str = "nothing") -> None:
    response = c.post(
        reverse("games:table_move", args=[game.pk]),
        {"seen_version": seen, "type": kind},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200 and 'data-applied="1"' in response.content.decode()


def token_in(html: str) -> str:
    return html.split("&amp;t=")[1].split('"')[0].replace("%3A", ":")


def test_one_seats_board_never_goes_to_another(
    board_caches, table, anna, bo, django_assert_max_num_queries
):
    # R1.5: each seat's board names its own seat; the second seat at the same version and the
    # same "since" (the same key but for the viewer) gets its own board, not the first's.
    table.refresh_from_db()
    anna_tab, bo_tab = tablet(anna), tablet(bo)
    bo_board = board(bo_tab, table, -1)
    # (Anna's first sight opens her turn's clock, R4.9: a few writes, no read of the moves.)
    with django_assert_max_num_queries(12) as queries:
        anna_board = board(anna_tab, table, -1)
    # What the seats share (the moves, their sentences, the history) was read for Bo's board.
    assert not any("games_move" in q["sql"] for q in queries.captured_queries)
    assert anna_board.count('<li value="') == bo_board.count('<li value="')
    assert token_in(bo_board) == poll_token(table, 1, bo.user.pk)
    assert token_in(anna_board) == poll_token(table, 0, anna.user.pk)
    assert 'data-my-turn="1"' in anna_board and 'data-my-turn="0"' in bo_board
    assert "Your turn!" in anna_board and "Your turn!" not in bo_board
    # Asked again (a cache hit for each), each still gets their own.
    assert token_in(board(bo_tab, table, -1)) == poll_token(table, 1, bo.user.pk)
    assert 'data-my-turn="1"' in board(anna_tab, table, -1)


def test_a_viewers_board_is_kept_per_version_and_a_new_version_is_a_new_board(
    board_caches, table, anna, bo, django_assert_max_num_queries
):
    bo_tab = tablet(bo)
    first = board(bo_tab, table, -1)
    assert 'data-version="0"' in first
    # The same viewer again at the same version: no rendering, no read of the moves; only
    # the permission check's queries (session, user, the table) remain.
    with django_assert_max_num_queries(4) as queries:
        again = board(bo_tab, table, -1)
    assert not any("games_move" in q["sql"] for q in queries.captured_queries)
    assert again.replace(re.search(r'data-now="\d+"', again)[0], "") == first.replace(
        re.search(r'data-now="\d+"', first)[0], ""
    ).replace(_csrf(first), _csrf(again))
    move(tablet(anna), table, 0)
    table.refresh_from_db()
    fresh = board(bo_tab, table, 0)
    assert 'data-version="1"' in fresh and "Anna says: nothing to do." in fresh
    assert "Check it!" in fresh  # Bo may challenge now (R5.1)
    assert "countdown-window" in fresh


def _csrf(html: str) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    return found[1] if found else ""


def test_what_differs_per_request_is_filled_in_per_request(board_caches, table, anna, bo):
    move(tablet(anna), table, 0)  # a challenge window opens: a countdown on Bo's board
    table.refresh_from_db()
    bo_tab = tablet(bo)
    html = board(bo_tab, table, 0)
    for mark in (board_cache.CSRF_MARK, board_cache.NOW_MARK, board_cache.LEFT_MARK):
        assert mark not in html
    left = int(re.search(r'countdown-num">(\d+)<', html)[1])
    assert 0 < left <= 30
    # Bo's second tablet (another browser, its own CSRF cookie) gets the same board from the
    # cache, with a CSRF token of its own that its move's post passes.
    second = tablet(bo)
    second.get(reverse("games:table", args=[table.pk]))  # its page: its own CSRF cookie
    second_html = board(second, table, 0)
    assert _csrf(second_html) and _csrf(second_html) != _csrf(html)
    strict = Client(enforce_csrf_checks=True)
    strict.cookies = second.cookies
    response = strict.post(
        reverse("games:table_move", args=[table.pk]),
        {"seen_version": 1, "type": "ok", "csrfmiddlewaretoken": _csrf(second_html)},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200


def test_the_key_names_the_viewer_version_language_and_since(table, anna, bo, rf):
    from django.contrib.auth.models import AnonymousUser

    seats = {s.position: s for s in table.seats.all()}

    def key(user, seat, since=0, lang="en"):
        request = rf.get("/")
        request.user = user or AnonymousUser()
        request.htmx = True
        with translation.override(lang):
            return board_cache.viewer_key(request, table, seat, since)

    base = key(anna.user, seats[0])
    assert base == key(anna.user, seats[0])
    assert base != key(bo.user, seats[0])  # another user, even for the same seat
    assert base != key(anna.user, seats[1])  # another seat
    assert base != key(anna.user, seats[0], since=-1)  # another "new since"
    assert base != key(anna.user, seats[0], lang="fr")  # another language
    table.version += 1
    assert base != key(anna.user, seats[0])  # another version
