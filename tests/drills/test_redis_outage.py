"""Drills (a) and (c): the site's Redis (cache, sessions, broker) killed and restarted mid-game.

(a) While Redis is down, teachers' and tablets' pages, the password login, the tablet sign-in,
    table polls and moves all keep working (cache and sessions fall back to the database),
    and the game goes on: the tablet's polls play the computer player's turns and apply the
    turn time-outs no worker can (no task can be queued, beat's sweep cannot reach a worker).
    A computer player's move that fell due while Redis was down, with no tablet polling, is
    played within 2 s of Redis coming back (the worker reconnects within a second and sweeps
    at once) — once.
(c) A real worker holding a delayed (countdown) task when Redis dies stays alive, reconnects
    and runs the task exactly once.
"""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Game, Move
from games.polling import poll_token
from kavet_site.cache import CIRCUIT_SECONDS
from tests import factories
from tests.drills.conftest import DRILL_VISIBILITY, wait_until

HX = {"HTTP_HX_REQUEST": "true"}
TURN_TIME = 8  # seconds a turn may last: short, so that one times out within the outage
POLL_EVERY = 2.0  # table.js without its push channel (POLL_FAST)
OUTAGE_LIMIT = 45  # seconds: the polls must have seen both within this much outage
RESUME_WITHIN = 2.0  # seconds after Redis returns (issue 25, item 4)


def _poll(client, game, v, token):
    """A tablet's poll as table.js sends it (the signed token, the poll header)."""
    return client.get(
        reverse("games:table", args=[game.pk]),
        {"v": v, "s": "running", "t": token},
        HTTP_X_KAVET_POLL="1",
        **HX,
    )


def _shown_version(response, seen: int) -> int:
    found = re.search(rb'data-version="(\d+)"', response.content)
    return int(found[1]) if response.status_code == 200 and found else seen


def test_redis_down_mid_game_pages_signin_polls_moves_and_the_game_keep_going(district, caplog):
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
        settings={"turn_time": TURN_TIME, "challenge_window": 0},
        draw_order=[4, 6, 10],
        label="T1",
    )
    game = services.game_start(game=game)
    district.worker(beat=True)  # a worker with the beat schedule: the 5 s sweep

    tablet = Client(raise_request_exception=False)
    tablet.force_login(anna.user)
    assert tablet.get(reverse("games:table", args=[game.pk])).status_code == 200  # her clock runs
    token = poll_token(game, 0, anna.user.pk)

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

    # Anna passes: the move is applied, the computer player is due, and queuing its task fails
    # after commit — logged, not a 500.
    start = game.version
    assert _poll(tablet, game, start, token).status_code in (200, 204)
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
    assert time.monotonic() - down_at < 10, "requests waited on the dead Redis"

    # From here Anna's tablet only polls, every 2 s as table.js does without its push channel,
    # and plays nothing: Robo's turns are played and Anna's turn times out (R4.9), by the polls.
    seen, slowest = start + 1, 0.0
    robo_at = timeout_at = None
    while time.monotonic() - down_at < OUTAGE_LIMIT and not (robo_at and timeout_at):
        tick = time.monotonic()
        seen = _shown_version(_poll(tablet, game, seen, token), seen)
        slowest = max(slowest, time.monotonic() - tick)
        if robo_at is None and Move.objects.filter(game=game, seat=1).exists():
            robo_at = time.monotonic() - down_at
        if timeout_at is None and Move.objects.filter(game=game, payload__type="timeout").exists():
            timeout_at = time.monotonic() - down_at
        time.sleep(max(0.0, POLL_EVERY - (time.monotonic() - tick)))
    assert robo_at, "the computer player did not move while Redis was down"
    assert timeout_at, "no turn timed out while Redis was down"
    assert seen == Game.objects.get(pk=game.pk).version, "the tablet does not show the table"
    # Past the circuit breaker's period: Redis is tried again, still down, pages still work.
    tick = time.monotonic()
    assert teacher_client.get(reverse("classrooms:teacher_home")).status_code == 200
    assert time.monotonic() - tick < 2

    # Anna plays once more (on what her tablet shows) and her tablet then sleeps: no poll any
    # more. Robo's answer falls due while Redis is still down; nobody but the workers can play it.
    game.refresh_from_db()
    if game.status == Game.Status.RUNNING and (game.state.get("timer") or {}).get("seat") == 0:
        assert services.move_submit(
            game_id=game.pk, seat=0, move={"type": "nothing"}, seen_version=game.version
        ).applied
        game.refresh_from_db()
    due = game.bot_due_at
    assert due is not None, "Robo has nothing to answer: the drill cannot measure the resume"
    wait_until(lambda: timezone.now() > due + timedelta(seconds=0.5), timeout=15)
    moves_before = Move.objects.filter(game=game).count()
    assert Game.objects.get(pk=game.pk).version == moves_before  # still waiting: nobody polled

    district.redis.start()
    up_at = time.monotonic()
    played = wait_until(
        lambda: Move.objects.filter(game=game).count() > moves_before, timeout=20, step=0.05
    )
    recovered = time.monotonic() - up_at
    assert played, "the computer player's move was not played after Redis came back"
    print(
        f"\nDRILL a: Redis down {up_at - down_at:.1f} s; during it Robo moved at "
        f"{robo_at:.1f} s and a turn timed out at {timeout_at:.1f} s (slowest poll "
        f"{slowest:.2f} s); the move due meanwhile played {recovered:.2f} s after Redis returned"
    )
    assert recovered < RESUME_WITHIN, f"the game resumed {recovered:.1f} s after Redis returned"
    time.sleep(2)
    game.refresh_from_db()
    moves = list(Move.objects.filter(game=game).values_list("number", "payload"))
    assert sorted(n for n, _ in moves) == list(
        range(1, game.version + 1)
    )  # none lost, none doubled
    timers = [p["timer"] for _, p in moves if p["type"] == "timeout"]
    assert len(timers) == len(set(timers)), "a time-out was applied twice"
    assert game.status in (Game.Status.RUNNING, Game.Status.FINISHED)

    # The cache works again for this process too: at the latest once the circuit breaker's
    # period after its last failed try is over (a pooled connection to the old Redis fails once).
    from django.core.cache import cache

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
