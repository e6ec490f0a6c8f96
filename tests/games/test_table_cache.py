"""The board rendered once per version and viewer (games.table_cache): never one seat's board to
another (R1.5: a seat sees its own hand only), a new version is a new board, and what differs per
request (the CSRF token, the clock, the countdown) is filled in per request. In-process and Redis."""

from __future__ import annotations

import os
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games import table_cache
from games.models import Game
from games.polling import poll_token
from games.services import timers
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


def move(c: Client, game: Game, seen: int, kind: str = "nothing") -> str:
    response = c.post(
        reverse("games:table_move", args=[game.pk]),
        {"seen_version": seen, "type": kind},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200 and 'data-applied="1"' in response.content.decode()
    return response.content.decode()


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
    for mark in (table_cache.CSRF_MARK, table_cache.NOW_MARK, table_cache.LEFT_MARK):
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


def test_the_keys_name_the_version_language_and_seat(table, anna, bo):
    seats = {s.position: s for s in table.seats.all()}

    def keys(seat, lang="en"):
        with translation.override(lang):
            return table_cache.shared_board_key(table), table_cache.seat_key(table, seat)

    shared, anna_own = keys(seats[0])
    assert keys(seats[0]) == (shared, anna_own)
    # The table's board is one for every seat; each seat's own parts are its own.
    assert keys(seats[1])[0] == shared and keys(seats[1])[1] != anna_own
    assert keys(seats[0], lang="fr")[0] != shared and keys(seats[0], lang="fr")[1] != anna_own
    table.version += 1
    assert keys(seats[0])[0] != shared and keys(seats[0])[1] != anna_own
    table.version -= 1
    table.status = Game.Status.PAUSED
    assert keys(seats[0])[0] != shared and keys(seats[0])[1] != anna_own


# --- the table's board, shared by its seats ---------------------------------------------------


@pytest.fixture
def cy(classroom):
    from tests import factories

    return factories.student(classroom=classroom, name="Cy", picture_code="6-7-8")


def _same(html: str) -> str:
    """The board without what differs per request (the clock, the CSRF token, the seconds left)."""
    html = re.sub(r'data-now="\d+"', "", html)
    html = re.sub(r'countdown-num">\d+<', "", html)
    return html.replace(_csrf(html), "") if _csrf(html) else html


def _whole(monkeypatch, c: Client, game: Game, since: int) -> str:
    """The board as rendered whole for this seat (as before the table's board was shared)."""
    with monkeypatch.context() as m:
        m.setattr(table_cache, "cacheable", lambda game: False)
        return board(c, game, since)


def test_each_seats_board_is_the_board_rendered_whole_for_it(
    board_caches, monkeypatch, make_game, anna, bo, cy
):
    # The shared board with each seat's own parts filled in is, byte for byte, what rendering
    # the whole board for that seat gives: at a turn, in a challenge window (a countdown), in a
    # challenge, for every seat and for several "since" (what is new to each tablet).
    # The computer waits to the window's last second: a slow run must not see it answer between
    # a board and the board it is compared with.
    monkeypatch.setattr(timers, "_answer_delay", lambda strength, rng: 600.0)
    game = make_game(
        [{"student": anna}, {"student": bo}, {"student": cy}, {"bot": "easy"}], challenge_window=30
    )
    tabs = [tablet(anna), tablet(bo), tablet(cy)]

    def check(*sinces):
        game.refresh_from_db()
        for c in tabs:
            for since in sinces:
                assert _same(board(c, game, since)) == _same(_whole(monkeypatch, c, game, since))

    def answered(c: Client, seen: int, kind: str) -> None:
        # The mover's answer is the table's new board with the mover's parts, applied.
        answer = move(c, game, seen, kind)
        game.refresh_from_db()
        whole = _whole(monkeypatch, c, game, seen)
        assert _same(answer) == _same(whole).replace('data-applied="0"', 'data-applied="1"')

    check(-1)
    answered(tabs[0], 0, "nothing")  # Anna: nothing to do; a challenge window for the others
    check(-1, 0)
    answered(tabs[1], 1, "challenge")  # Bo says "Kavet 'm eus!"
    check(-1, 0, 1)
    assert "You said “Kavet 'm eus!”" in board(tabs[1], game, 1)
    from games import services

    services.game_end(game=game, by=None)  # ended early: the ranking, each seat's row its own
    check(2)
    assert "The game was ended early." in board(tabs[2], game, 2)


def test_a_seat_never_gets_another_seats_own_parts(board_caches, make_game, anna, bo, cy):
    # Anna's turn: her board has the builder and "Your turn!", her row is hers; Bo's and Cy's,
    # made from the same table's board just after hers, have none of it, each their own row.
    game = make_game([{"student": anna}, {"student": bo}, {"student": cy}])
    game.refresh_from_db()
    anna_board = board(tablet(anna), game, -1)
    others = {name: board(tablet(s), game, -1) for name, s in (("Bo", bo), ("Cy", cy))}
    assert "Your turn!" in anna_board and 'id="move-form"' in anna_board
    assert 'data-my-turn="1"' in anna_board
    assert 'data-card="4"' in anna_board and "disabled>" not in anna_board
    assert re.search(r'class="player is-active is-me"', anna_board)
    for name, html in others.items():
        assert "Your turn!" not in html and 'id="move-form"' not in html, name
        assert 'data-my-turn="0"' in html and "Anna's turn." in html
        assert 'aria-pressed="false" disabled>' in html  # the table's cards: not Bo's to tap
        me = re.findall(
            r'class="player[^"]*is-me[^"]*">\s*<span class="player-name">([^<]+)<', html
        )
        assert me == [name]
    # The stored table's board holds no seat's own part, no token, no CSRF token.
    from django.core.cache import cache

    game.refresh_from_db()  # (Anna's first sight started her turn's clock, R4.9)
    shared = cache.get(table_cache.shared_board_key(game))["html"]
    assert "is-me" not in shared and "move-form" not in shared and "Your turn" not in shared
    assert "&amp;t=" + table_cache.POLL_MARK in shared
    assert token_in(anna_board) == poll_token(game, 0, anna.user.pk)
    assert token_in(others["Bo"]) == poll_token(game, 1, bo.user.pk)


def test_the_tables_board_is_rendered_once_per_version(board_caches, make_game, anna, bo, cy):
    game = make_game([{"student": anna}, {"student": bo}, {"student": cy}])
    game.refresh_from_db()
    tabs = [tablet(anna), tablet(bo), tablet(cy)]
    before = dict(table_cache.renders)

    def rendered() -> dict:
        return {k: table_cache.renders[k] - before[k] for k in before}

    for c in tabs:
        board(c, game, -1)
    # One table's board for the three seats, and each seat's two own parts (its turn, its form).
    assert rendered() == {"shared": 1, "seat": 6, "whole": 0}
    for c in tabs:  # asked again (a second tablet, a reconnect): nothing rendered
        board(c, game, -1)
    assert rendered() == {"shared": 1, "seat": 6, "whole": 0}
    # A move: its answer renders the table's board of the new version, the other seats' fetches
    # (told by the push) read it; only each seat's own parts are rendered for each.
    move(tabs[0], game, 0, "nothing")
    game.refresh_from_db()
    for c in tabs[1:]:
        assert "Anna says: nothing to do." in board(c, game, 0)
    assert rendered() == {"shared": 2, "seat": 12, "whole": 0}


def test_a_board_being_rendered_is_waited_for_not_rendered_again(board_caches, table, monkeypatch):
    # The seats ask at the same moment (the push goes out at the commit): one renders, the
    # others wait for its board rather than render their own.
    from django.core.cache import cache

    key = "kv:board:test-once"
    cache.add(key + ":making", 1, 5)  # another request is making it
    made = []
    monkeypatch.setattr(table_cache.time, "sleep", lambda s: cache.set(key, "theirs", 5))
    assert table_cache._once(key, lambda: made.append(1) or ("mine", {})) == "theirs"
    assert made == []
    cache.delete_many([key, key + ":making"])
    # What it made on the way is stored with it.
    assert table_cache._once(key, lambda: made.append(1) or ("mine", {key + ":part": 7})) == "mine"
    assert made == [1] and cache.get(key) == "mine" and cache.get(key + ":making") is None
    assert cache.get(key + ":part") == 7
