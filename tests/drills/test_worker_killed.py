"""Drill (d): a worker SIGKILLed (kill -9, pool and all) in the middle of its work.

- During a class's report build: the message comes back after the (drill-shortened) visibility
  timeout, another worker finishes the build, and every report is built exactly once — the
  ones built before the kill are not rebuilt.
- During a game with a computer player whose move the killed worker was holding: the beat
  sweep of a new worker plays it from the database; the redelivered message later finds
  nothing to do — one move, not two.
"""

from __future__ import annotations

import time
from datetime import date

import pytest

from classrooms.reports import services as report_services
from classrooms.reports.models import ReportJob, WeeklyReport
from games import services
from games.models import Move
from tests import factories
from tests.drills.conftest import DRILL_VISIBILITY, wait_until

pytestmark = pytest.mark.drill
WEEK = date(2026, 11, 16)


def test_worker_killed_mid_report_build_is_redelivered_and_builds_each_report_once(district):
    school = factories.school()
    teacher = factories.teacher(school=school)
    classroom = factories.classroom(school=school, teachers=[teacher])
    students = [factories.student(classroom=classroom, name=f"Child {i}") for i in range(8)]
    first = district.worker(DRILL_SLOW_REPORTS="0.4")
    job = report_services.report_job_create(by=teacher, classroom=classroom, week_start=WEEK)
    reports = WeeklyReport.objects.filter(student__in=students, week_start=WEEK)
    assert wait_until(lambda: reports.count() >= 2, timeout=15), first.output()[-3000:]
    first.sigkill()
    killed_at = time.monotonic()
    before = dict(reports.values_list("student_id", "built_at"))
    assert 2 <= len(before) < len(students), "the build was not caught in the middle"
    assert ReportJob.objects.get(pk=job.pk).status == ReportJob.Status.RUNNING

    second = district.worker()
    done = wait_until(
        lambda: ReportJob.objects.filter(pk=job.pk, status=ReportJob.Status.DONE).exists(),
        timeout=DRILL_VISIBILITY + 20,
        step=0.25,
    )
    print(
        f"\nDRILL d: report job finished {time.monotonic() - killed_at:.1f} s after the kill "
        f"(visibility timeout {DRILL_VISIBILITY} s)"
    )
    assert done, second.output()[-3000:]
    assert reports.count() == len(students)  # every child, one report each (unique per week)
    after = dict(reports.values_list("student_id", "built_at"))
    assert all(after[pk] == built for pk, built in before.items()), "a finished report was rebuilt"
    assert second.output().count("build_class_reports") >= 1


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
