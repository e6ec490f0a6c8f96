"""One signed-in tablet floods the push streams of the real ASGI server (gunicorn + uvicorn
workers, gunicorn.conf.py, two processes on PostgreSQL and Redis, loopback only).

2,000 streams are tried from one tablet, 200 at a time, while this process asks for /healthz
and another tablet's table page every 0.1 s. At most a handful of the flood's streams are
open at the end (the oldest are closed with `bye`, across both processes); /healthz and the
other table answer 200 within a second throughout; the other tablet's stream, opened before
the flood from the same address, is still open and hears its table move; the server never ran
out of pooled database connections.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils.module_loading import import_string

from games import push, services
from games.polling import poll_token
from games.signin import SEEN_KEY, SESSION_KEY
from tests import factories, workers
from tests.conftest import need_service
from tests.drills.services import ROOT, free_port

ATTEMPTS = 2000
CONCURRENCY = 200
FLOOD_DEADLINE = 90.0  # seconds: the flood stops trying after this, whatever it reached
ANSWER_WITHIN = 1.0  # seconds, for /healthz and the other tablet's table
SAMPLE_EVERY = 0.1


def redis_reachable(url: str) -> bool:
    import redis

    try:
        return bool(url) and redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError:
        return False


def tablet_cookie(user) -> str:
    """A tablet's signed-in session, as the picture sign-in leaves it (games.signin)."""
    store = import_string(settings.SESSION_ENGINE + ".SessionStore")()
    store["_auth_user_id"] = str(user.pk)
    store["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    store["_auth_user_hash"] = user.get_session_auth_hash()
    store[SESSION_KEY] = {"idle": 10, "classroom": user.student.classroom_id}
    store[SEEN_KEY] = time.time() + 3600
    store.save()
    return f"{settings.SESSION_COOKIE_NAME}={store.session_key}"


def table_of(classroom, students):
    game = services.game_create(
        school=classroom.school,
        classroom=classroom,
        players=[{"student": s} for s in students],
        settings={"turn_time": 0, "challenge_window": 600},
        label="T",
    )
    return services.game_start(game=game)


def stream_path(game, student) -> str:
    token = poll_token(
        game,
        next(s.position for s in game.seats.all() if s.student_id == student.pk),
        student.user.pk,
    )
    return f"{reverse('games:table_stream', args=[game.pk])}?t={token}&v={game.version}"


def get(port: int, path: str, cookie: str = "") -> tuple[int, float]:
    """Status and seconds of one GET on a new connection, as a load balancer's probe does."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        response = conn.getresponse()
        response.read()
        return response.status, time.monotonic() - started
    except OSError:
        return 0, time.monotonic() - started
    finally:
        conn.close()


@pytest.fixture
def server(postgres, tmp_path):
    need_service(
        redis_reachable(settings.REDIS_URL), "Redis (REDIS_URL) shared by the web processes"
    )
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 8192:  # both ends of the flood's sockets (the server inherits it)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(8192, hard), hard))
    port = free_port()
    env = dict(
        os.environ,
        DATABASE_URL=workers.database_url(postgres.settings_dict),
        REDIS_URL=settings.REDIS_URL,
        SECRET_KEY=settings.SECRET_KEY,
        DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1",
        LOG_LEVEL="WARNING",
        WEB_CONCURRENCY="2",
        KAVET_STREAMS_PER_SESSION="5",
    )
    log = tmp_path / "gunicorn.log"
    cmd = [
        str(Path(sys.executable).with_name("gunicorn")),
        "-c",
        "gunicorn.conf.py",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "2",
        "kavet_site.asgi",
    ]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while get(port, "/healthz")[0] != 200:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"gunicorn did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.3)
            yield type("Server", (), {"port": port, "log": log})
        finally:
            workers.stop(proc, timeout=20)


def test_a_stream_flood_from_one_tablet_leaves_the_site_answering(server, school):
    classroom = factories.classroom(school=school)
    anna, bo, carl, dora = (
        factories.student(classroom=classroom, name=n, picture_code=f"{i}-{i + 1}-{i + 2}")
        for i, n in enumerate(["Anna", "Bo", "Carl", "Dora"])
    )
    flooded = table_of(classroom, [anna, bo])
    other = table_of(classroom, [carl, dora])
    anna_cookie, carl_cookie = tablet_cookie(anna.user), tablet_cookie(carl.user)
    other_page = reverse("games:table", args=[other.pk])
    port = server.port
    # Warm: the first page of each worker compiles its templates.
    for _ in range(4):
        assert get(port, other_page, carl_cookie)[0] == 200

    flood = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.drills.stream_flood",
            str(port),
            stream_path(flooded, anna),
            anna_cookie,
            stream_path(other, carl),
            carl_cookie,
            str(ATTEMPTS),
            str(CONCURRENCY),
            str(FLOOD_DEADLINE),
        ],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in flood.stdout], daemon=True).start()

    def next_line(prefix: str, timeout: float) -> str | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.01)
            except queue.Empty:
                if flood.poll() is not None and lines.empty():
                    return None
                continue
            if line.startswith(prefix):
                return line[len(prefix) :]
        return None

    samples: list[tuple[str, int, float]] = []
    try:
        flooded_line = None
        stop_at = time.monotonic() + FLOOD_DEADLINE + 60
        while flooded_line is None and time.monotonic() < stop_at and flood.poll() is None:
            for name, path, cookie in (
                ("healthz", "/healthz", ""),
                ("other table", other_page, carl_cookie),
            ):
                status, seconds = get(port, path, cookie)
                samples.append((name, status, seconds))
            flooded_line = next_line("FLOODED ", SAMPLE_EVERY)
        assert flooded_line is not None, "the flood did not finish"
        report = json.loads(flooded_line)

        # The keeper's table moves (published as a web process does after a move).
        push.table_changed(game_id=other.pk, version=other.version + 1)
        flood.stdin.write("moved\n")
        flood.stdin.flush()
        heard = json.loads(next_line("HEARD ", 20) or "{}")
    finally:
        if flood.poll() is None:
            flood.kill()
        flood.wait(timeout=10)

    log = server.log.read_text(errors="replace")
    slow = [s for s in samples if s[1] != 200 or s[2] > ANSWER_WITHIN]
    times = sorted(s[2] for s in samples)
    print(
        report,
        f"{len(samples)} answers: median {times[len(times) // 2]:.3f} s, slowest {times[-1]:.3f} s",
    )
    assert report["attempts"] == ATTEMPTS
    assert len(samples) >= 10, "the flood ended before the site was probed"
    assert slow == [], f"answers not 200 within {ANSWER_WITHIN} s during the flood: {slow[:10]}"
    # At most a handful stay open; the ones past the cap were closed with `bye`.
    assert 1 <= report["still_open"] <= 5, (report, log[-3000:])
    assert report["opened"] > 5, report  # the cap closes the oldest, it does not refuse all
    assert report["ended_without_bye"] == 0, report
    assert report["ended_with_bye"] == report["opened"] - report["still_open"], report
    # Refused ones were told to try again later (503 from the gate), nothing else.
    assert set(report["statuses"]) <= {"200", "503"}, report
    assert report["keeper_open"] and heard.get("keeper"), (report, heard)
    assert "PoolTimeout" not in log and "Traceback" not in log, log[-3000:]
