"""Drill (d): a worker SIGKILLed (kill -9, pool and all) in the middle of its work.

- During a class's report build, with production's timeouts (a 300 s visibility timeout):
  the build's heartbeat goes quiet, the beat's reports sweep takes the job over within a
  minute, another worker finishes it, and every report is built exactly once — the ones
  built before the kill are not rebuilt.
- During a game with a computer player whose move the killed worker was holding: the beat
  sweep of a new worker plays it from the database; the redelivered message later finds
  nothing to do — one move, not two.
"""

from __future__ import annotations

import time
from datetime import date

import pytest

from games import services
from games.models import Move
from reports import services as report_services
from reports.models import ReportJob, WeeklyReport
from reports.selectors import job_progress
from tests import factories
from tests.drills.conftest import DRILL_VISIBILITY, wait_until

pytestmark = pytest.mark.drill
WEEK = date(2026, 11, 16)
PRODUCTION_VISIBILITY = 300  # CELERY_VISIBILITY_TIMEOUT's default (kavet_site/settings.py)
TAKE_OVER_WITHIN = 60  # seconds from the kill to the finished build (issue 25, item 5)


@pytest.mark.parametrize("drill_visibility", [PRODUCTION_VISIBILITY], ids=["production-timeouts"])
def test_worker_killed_mid_report_build_is_taken_over_within_a_minute_and_built_once(
    district, drill_visibility
):
    from django.conf import settings

    # The timeouts production runs with: nothing shortened for the drill.
    assert drill_visibility == settings.CELERY_VISIBILITY_TIMEOUT == PRODUCTION_VISIBILITY
    school = factories.school()
    teacher = factories.teacher(school=school)
    classroom = factories.classroom(school=school, teachers=[teacher])
    students = [factories.student(classroom=classroom, name=f"Child {i}") for i in range(6)]
    first = district.worker(DRILL_SLOW_REPORTS="0.4")
    job = report_services.report_job_create(by=teacher, classroom=classroom, week_start=WEEK)
    reports = WeeklyReport.objects.filter(student__in=students, week_start=WEEK)
    assert wait_until(lambda: reports.count() >= 2, timeout=15), first.output()[-3000:]
    # The beat runs on another worker, as in production (one beat process, not on the worker
    # that dies); it started before the kill.
    second = district.worker(beat=True)
    first.sigkill()
    killed_at = time.monotonic()
    before = dict(reports.values_list("student_id", "built_at"))
    assert 2 <= len(before) < len(students), "the build was not caught in the middle"
    job.refresh_from_db()
    assert job.status == ReportJob.Status.RUNNING
    # What the teacher's page shows: "Building… N of 6", stuck until someone takes over.
    assert job_progress(job)["done"] == len(before) and not job_progress(job)["finished"]

    done = wait_until(
        lambda: ReportJob.objects.filter(pk=job.pk, status=ReportJob.Status.DONE).exists(),
        timeout=TAKE_OVER_WITHIN + 15,
        step=0.25,
    )
    taken = time.monotonic() - killed_at
    print(
        f"\nDRILL d: report job finished {taken:.1f} s after the kill "
        f"(visibility timeout {drill_visibility} s, as in production)"
    )
    assert done, second.output()[-3000:]
    assert taken < TAKE_OVER_WITHIN, f"the build was taken over only after {taken:.0f} s"
    assert reports.count() == len(students)  # every child, one report each (unique per week)
    after = dict(reports.values_list("student_id", "built_at"))
    assert all(after[pk] == built for pk, built in before.items()), "a finished report was rebuilt"
    assert job_progress(ReportJob.objects.get(pk=job.pk))["done"] == len(students)
    assert "taken over" in second.output()


def test_worker_killed_holding_a_computer_move_the_sweep_plays_it_once(district):
    school = factories.school()
    classroom = factories.classroom(school=school)
    anna = factories.student(classroom=classroom, name="Anna")
    game = services.game_create(
        school=school,
        classroom=classroom,
        players=[{"student": anna}, {"bot": "easy", "name": "Robo"}],
        settings={"turn_time": 0, "challenge_window": 0},
        draw_order=[4, 6, 10],
        label="T1",
    )
    game = services.game_start(game=game)
    first = district.worker()
    out = services.move_submit(
        game_id=game.pk, seat=0, seen_version=game.version, move={"type": "nothing"}
    )
    assert out.applied and out.game.bot_due_at is not None
    assert wait_until(lambda: "game_tick_task" in first.output(), timeout=5), first.output()[-2000:]
    first.sigkill()  # it held the computer player's move for its countdown (4-9 s, easy)
    killed_at = time.monotonic()
    assert not Move.objects.filter(game=game, seat=1).exists()

    district.worker(beat=True)
    played = wait_until(lambda: Move.objects.filter(game=game, seat=1).exists(), timeout=20)
    assert played, "no one played the computer player's move after its worker died"
    print(
        f"\nDRILL d: bot move played {time.monotonic() - killed_at:.1f} s after the worker was killed"
    )
    # The killed worker's message comes back after the visibility timeout: nothing more to do.
    time.sleep(max(0.0, DRILL_VISIBILITY + 3 - (time.monotonic() - killed_at)))
    game.refresh_from_db()
    # The held move was played once, as move 2 (right after Anna's). A later computer move is
    # its next turn (R4.4: a player who wins a trick plays on), never the held one again: the
    # moves are numbered without a gap or a repeat, one per version.
    bot_moves = list(Move.objects.filter(game=game, seat=1).order_by("number"))
    assert bot_moves[0].number == 2
    assert [m.payload for m in bot_moves].count(bot_moves[0].payload) == 1
    numbers = list(Move.objects.filter(game=game).values_list("number", flat=True))
    assert sorted(numbers) == list(range(1, game.version + 1))
