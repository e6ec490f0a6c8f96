"""Scaling out: two web processes (the production ASGI command on two ports, as two machines
behind a load balancer would run it) share one table through the same PostgreSQL and the same
Redis pub/sub. A move posted to process A reaches a tablet streaming from process B with its new
board in the event (made on A, filled in for the tablet on B), and that board is the one B
answers when asked (R5.1: every tablet of the table hears the move)."""

from __future__ import annotations

import http.client
import json
import os
import time
from urllib.parse import quote

import pytest

from games.models import Game
from games.polling import poll_token
from tests.conftest import need_service
from tests.games.test_table_cache import _same

CSRF = "twoprocesscsrftoken0123456789abc"  # 32 letters and digits: a CSRF secret's shape


@pytest.fixture
def shared_services(transactional_db):
    """PostgreSQL and Redis, both shared with the web processes this test starts."""
    from django.db import connection

    need_service(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL) for two processes")
    need_service(bool(os.environ.get("REDIS_URL")), "Redis (REDIS_URL) for the push channel")
    db = connection.settings_dict
    return {
        "DATABASE_URL": (
            f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "REDIS_URL": os.environ["REDIS_URL"],
    }


def session_cookie(student, game: Game, position: int) -> str:
    """A signed-in tablet of this child, as the class sign-in leaves it (Redis sessions)."""
    from django.conf import settings
    from django.utils.module_loading import import_string

    s = import_string(settings.SESSION_ENGINE + ".SessionStore")()
    user = student.user
    s["_auth_user_id"] = str(user.pk)
    s["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    s["_auth_user_hash"] = user.get_session_auth_hash()
    s["kv_student"] = {"idle": 10, "classroom": game.classroom_id}
    s["kv_seen"] = time.time() + 3600
    s["kv_seats"] = {str(game.pk): position}
    s.save()
    return f"sessionid={s.session_key}; csrftoken={CSRF}"


def read_events(response, want, timeout: float) -> list[dict]:
    """Server-sent events from a streaming response until `want(events)` or the timeout."""
    events, block = [], {}
    deadline = time.monotonic() + timeout
    while not want(events):
        if time.monotonic() > deadline:
            raise AssertionError(f"not heard in {timeout} s: {events}")
        line = response.readline().decode().rstrip("\n")
        if line == "":
            if block:
                events.append(block)
            block = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(": ")
            block[name] = value
    return events


def test_a_move_on_process_a_reaches_a_tablet_streaming_from_process_b(
    shared_services, settings, make_game, anna, bo
):
    from benchmarks.serve import bench_env, free_port, gunicorn_cmd, serving

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    game = make_game([{"student": anna}, {"student": bo}], challenge_window=30)
    anna_cookie = session_cookie(anna, game, 0)
    bo_cookie = session_cookie(bo, game, 1)
    env = bench_env(**shared_services, CONN_MAX_AGE="0")
    port_a, port_b = free_port(), free_port()
    cmd = lambda port: gunicorn_cmd("kavet_site.asgi", port, "--workers", "1")  # noqa: E731
    kwargs = dict(env=env, start_timeout=60, stop_timeout=20, what="a web process", poll=0.3)
    with serving(cmd(port_a), port=port_a, **kwargs), serving(cmd(port_b), port=port_b, **kwargs):
        # Bo's tablet streams from process B ...
        b = http.client.HTTPConnection("127.0.0.1", port_b, timeout=15)
        token = quote(poll_token(game, 1, bo.user.pk))
        b.request(
            "GET",
            f"/push/table/{game.pk}/?v={game.version}&t={token}",
            headers={"Cookie": bo_cookie, "Accept": "text/event-stream"},
        )
        stream = b.getresponse()
        assert stream.status == 200
        read_events(stream, lambda ev: any(e.get("event") == "hello" for e in ev), 15)
        # ... and Anna's move is posted to process A.
        a = http.client.HTTPConnection("127.0.0.1", port_a, timeout=15)
        a.request(
            "POST",
            f"/play/{game.pk}/move/",
            f"seen_version={game.version}&type=nothing",
            {
                "Cookie": anna_cookie,
                "X-CSRFToken": CSRF,
                "HX-Request": "true",
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )
        answer = a.getresponse()
        assert answer.status == 200 and 'data-applied="1"' in answer.read().decode()
        sent = time.monotonic()
        heard = read_events(stream, lambda ev: any(e.get("event") == "table" for e in ev), 10)
        news = json.loads(next(e for e in heard if e.get("event") == "table")["data"])
        assert news["version"] == game.version + 1 and time.monotonic() - sent < 10
        b.close()
        # Bo's tablet asks B for its new board, as table.js does when told.
        fetch = http.client.HTTPConnection("127.0.0.1", port_b, timeout=15)
        fetch.request(
            "GET",
            f"/play/{game.pk}/?v={game.version}&s=running&t={token}",
            headers={"Cookie": bo_cookie, "HX-Request": "true", "X-Kavet-Poll": "1"},
        )
        board = fetch.getresponse()
        html = board.read().decode()
        assert board.status == 200
        assert f'data-version="{game.version + 1}"' in html
        assert "Anna says: nothing to do." in html and "Check it!" in html
        # The event itself carried that board, made on A, filled in for Bo on B: the fetch is
        # what a tablet does only when an event has no board.
        assert _same(news["board"]) == _same(html)
