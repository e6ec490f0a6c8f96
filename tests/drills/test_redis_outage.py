"""Drills (a) and (c): the site's Redis (cache, sessions, broker) killed and restarted mid-game.

(a) While Redis is down, teachers' and tablets' pages, the password login, the tablet sign-in,
    table polls and moves all keep working (cache and sessions fall back to the database);
    a computer player's move that could not be queued is played by the beat sweep once
    Redis is back — once.
(c) A real worker holding a delayed (countdown) task when Redis dies stays alive, reconnects
    and runs the task exactly once.
"""

from __future__ import annotations

import time

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Game, Move
from kavet_site.cache import CIRCUIT_SECONDS
from tests import factories
from tests.drills.conftest import DRILL_VISIBILITY, wait_until

HX = {"HTTP_HX_REQUEST": "true"}


def _poll(client, game, v):
    return client.get(
        reverse("games:table", args=[game.pk]),
        {"v": v, "s": "running", "t": ""},
        HTTP_X_KAVET_POLL="1",
        **HX,
    )


def test_redis_down_mid_game_pages_signin_polls_and_moves_keep_working(district, caplog):
    school = factories.school()
    teacher = factories.teacher(school=school, username="drill-teacher")
    teacher.set_password("drill-pass-1")
    teacher.save()
    classroom = factories.classroom(school=school, teachers=[teacher])
    anna = factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    game = services.game_create(
        school=school,
        classroom=classroom,
        players=[{"student": anna}, {"bot": "hard", "name": "Robo"}],
        settings={"turn_time": 0, "challenge_window": 0},
        draw_order=[4, 6, 10],
        label="T1",
    )
    game = services.game_start(game=game)
    district.worker(beat=True)  # a worker with the beat schedule: the 5 s sweep

    tablet = Client(raise_request_exception=False)
    tablet.force_login(anna.user)
    assert tablet.get(reverse("games:table", args=[game.pk])).status_code == 200

    district.redis.kill()
    down_at = time.monotonic()

    # The teacher signs in with a password and reads a page.
    teacher_client = Client(raise_request_exception=False)
    assert teacher_client.get(reverse("login")).status_code == 200
    login = teacher_client.post(
        reverse("login"), {"username": "drill-teacher", "password": "drill-pass-1"}
    )
    assert login.status_code == 302, login.content[:500]
    assert teacher_client.get(reverse("classrooms:teacher_home")).status_code == 200

    # A tablet signs in with the class code and the three pictures.
    other = Client(raise_request_exception=False)
    assert other.post(reverse("games:tablet_signin"), {"code": classroom.code}).status_code == 302
    so_far = ""
    for pick in (0, 1, 2):
        response = other.post(
            reverse("games:tablet_pictures", args=[anna.pk]), {"so_far": so_far, "pick": pick}
        )
        so_far = f"{so_far}-{pick}" if so_far else str(pick)
    assert response.status_code == 302
    assert other.get(reverse("games:student_home")).status_code == 200

    # Anna's tablet polls, then passes: the move is applied, the computer player is due, and
    # queuing its task fails after commit — logged, not a 500.
    start = game.version
    assert _poll(tablet, game, start).status_code in (200, 204)
    move = tablet.post(
        reverse("games:table_move", args=[game.pk]),
        {"seen_version": start, "type": "nothing"},
        **HX,
    )
    assert move.status_code == 200, move.content[:500]
    game.refresh_from_db()
    assert game.version == start + 1 and game.bot_due_at is not None
    assert any(
        "could not queue games.tasks.game_tick_task" in r.getMessage() for r in caplog.records
    )
    board = _poll(tablet, game, start)
    assert board.status_code == 200 and b"data-card" in board.content  # the new board
    assert time.monotonic() - down_at < 10, "requests waited on the dead Redis"
    # Past the circuit breaker's period: Redis is tried again, still down, pages still work.
    time.sleep(5.5)
    tick = time.monotonic()
    assert teacher_client.get(reverse("classrooms:teacher_home")).status_code == 200
    assert time.monotonic() - tick < 2

    # No tablet polls from now on (a poll would play a due computer player itself): once
    # Redis is back, the beat sweep plays it from the database, once.
    district.redis.start()
    up_at = time.monotonic()
    played = wait_until(lambda: Move.objects.filter(game=game, seat=1).exists(), timeout=20)
    recovered = time.monotonic() - up_at
    assert played, "the computer player's move was not played after Redis came back"
    print(
        f"\nDRILL a: Redis down {up_at - down_at:.1f} s; bot move played {recovered:.1f} s after Redis returned"
    )
    time.sleep(2)
    game.refresh_from_db()
    numbers = list(Move.objects.filter(game=game).values_list("number", flat=True))
    assert len(numbers) == len(set(numbers)) == game.version  # no move doubled, none lost
    assert game.status in (Game.Status.RUNNING, Game.Status.FINISHED)
    # The cache works again for this process too.
    from django.core.cache import cache

    # The cache works again for this process too: at the latest once the circuit breaker's
    # period after its last failed try is over (a pooled connection to the old Redis fails once).
    def cache_works() -> bool:
        cache.set("drill:after", "ok", 30)
        return cache.get("drill:after") == "ok"

    assert wait_until(cache_works, timeout=CIRCUIT_SECONDS + 3)


def test_worker_holding_a_countdown_task_survives_redis_dying(district, tmp_path):
    from tests.drills.probe import record

    worker = district.worker()
    out = tmp_path / "runs.txt"
    out.touch()
    record.apply_async((str(out), "eta-task"), countdown=6)
    received = wait_until(
        lambda: "drills.record" in worker.output() and "received" in worker.output(), timeout=5
    )
    assert received, worker.output()[-2000:]
    time.sleep(1)  # the worker holds it, waiting for its countdown
    district.redis.kill()
    time.sleep(2)
    assert worker.alive(), worker.output()[-3000:]
    district.redis.start()
    up_at = time.monotonic()
    ran = wait_until(lambda: out.read_text().strip(), timeout=DRILL_VISIBILITY + 15)
    print(f"\nDRILL c: the held task ran {time.monotonic() - up_at:.1f} s after Redis returned")
    assert ran == "eta-task", worker.output()[-3000:]
    # Past the visibility timeout again: still once, and the worker is still there.
    time.sleep(DRILL_VISIBILITY + 2)
    assert out.read_text().split() == ["eta-task"]
    assert worker.alive(), worker.output()[-3000:]
    assert "Unrecoverable error" not in worker.output()
    with district.app.connection_for_write() as conn:  # a fresh one: ours died with Redis
        assert district.app.control.ping(timeout=2, connection=conn), "the worker does not answer"


pytestmark = pytest.mark.drill
