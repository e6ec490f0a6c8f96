"""Week tallies: a report merges the stored tallies of earlier weeks with its own week's
plays, so its queries do not grow with the weeks before it, and its figures are those of
counting every play again."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import Play
from reports import services
from reports.management.commands.plays_reskill import plays_reskill
from reports.models import WeekTally
from reports.progress import week_bounds
from reports.selectors import school_tz
from tests import factories
from tests.conftest import examples
from tests.reports.oracle import report_data
from tests.reports.plays import one_move, paris, played_game

pytestmark = pytest.mark.django_db
FIRST = date(2026, 9, 7)  # a Monday


def _monday(week: int) -> date:
    return FIRST + timedelta(weeks=week - 1)


def _full(student, week_start):
    """The report counted afresh from every play, with report_build's other inputs."""
    report = services.report_build(student=student, week_start=week_start)
    plays = list(
        Play.objects.filter(student=student).order_by("at", "pk").values(*services.PLAY_FIELDS)
    )
    tz = school_tz(student.classroom.school)
    start, end = week_bounds(week_start, tz)
    details = services.report_details(
        student=student, start=start, end=end, plays=[p for p in plays if start <= p["at"] < end]
    )
    data = report_data(
        plays=plays,
        week_start=week_start,
        tz=school_tz(student.classroom.school),
        level=student.level,
        **details,
    )
    return report.data, data


def _queries(student, week_start) -> int:
    with CaptureQueriesContext(connection) as ctx:
        services.report_build(student=student, week_start=week_start)
    return len(ctx.captured_queries)


def test_week_72_is_built_with_the_queries_of_week_2(classroom):
    # Anna and Bo play the same weeks; Anna's report of week 2, Bo's of week 72.
    anna, bo = (factories.student(classroom=classroom, name=n) for n in ("Anna", "Bo"))
    for week in (1, 2, 30, 71, 72):
        monday = _monday(week)
        for kid in (anna, bo):
            for k, move in enumerate(("2 + 3 = 5", "2 + 5 = 3")):
                one_move(
                    classroom=classroom,
                    student=kid,
                    move=move,
                    at=paris(monday.year, monday.month, monday.day, 10, k),
                )
    cold = (_queries(anna, _monday(2)), _queries(bo, _monday(72)))
    assert cold[0] == cold[1]  # the first build stores every earlier week in the same queries
    warm = (_queries(anna, _monday(2)), _queries(bo, _monday(72)))
    assert warm[0] == warm[1] < cold[0]
    assert WeekTally.objects.filter(student=bo).count() == 4  # weeks 1, 2, 30 and 71


@settings(max_examples=examples(0.04), suppress_health_check=list(HealthCheck))
@given(
    weeks=st.lists(st.integers(1, 12), min_size=1, max_size=3),
    seed=st.integers(1, 10**6),
    late=st.integers(1, 12),
)
def test_stored_tallies_give_the_figures_of_a_full_count(school, teacher, weeks, seed, late):
    classroom = factories.classroom(school=school, teachers=[teacher])
    kids = [factories.student(classroom=classroom) for _ in range(2)]
    for week in sorted(weeks):
        monday = _monday(week)
        played_game(
            classroom=classroom,
            students=kids,
            seed=seed + week,
            moves=25,
            at=paris(monday.year, monday.month, monday.day, 10, 0),
        )
    report_week = _monday(13)
    built, full = _full(kids[0], report_week)
    assert built == full
    # A late game in an earlier week (its plays arrive after the tallies were stored).
    monday = _monday(late)
    played_game(
        classroom=classroom,
        students=kids,
        seed=seed,
        moves=15,
        at=paris(monday.year, monday.month, monday.day, 14, 0),
    )
    built, full = _full(kids[0], report_week)
    assert built == full and built["year"]["games"] == len(weeks) + 1


def test_erasing_a_student_erases_their_tallies(classroom, school):
    anna = factories.student(classroom=classroom, name="Anna")
    one_move(classroom=classroom, student=anna, move="2 + 3 = 5", at=paris(2026, 9, 8, 10, 0))
    services.report_build(student=anna, week_start=_monday(3))
    assert WeekTally.objects.filter(student=anna).exists()
    admin = factories.school_admin(school=school)
    services.student_erase(student=anna, by=admin)
    assert not WeekTally.objects.exists()


def test_reskill_stores_the_engines_skills_and_drops_the_tallies(classroom):  # R3.5
    anna = factories.student(classroom=classroom, name="Anna")
    one_move(
        classroom=classroom,
        student=anna,
        move="8 + 4 = 10",
        at=paris(2026, 9, 8, 10, 0),
        table_values=(8, 4, 10),
    )
    play = Play.objects.get(student=anna)
    assert play.ok is False and play.verdict_kind == "wrong"
    Play.objects.filter(pk=play.pk).update(skills=[])  # as plays were stored before
    services.report_build(student=anna, week_start=_monday(2))
    assert plays_reskill(dry_run=True) == (1, 1)
    assert plays_reskill() == (1, 1)
    play.refresh_from_db()
    assert play.skills == ["addsub_20"]  # 8 + 4 is 12: beyond 10, whatever was written
    assert not WeekTally.objects.filter(student=anna).exists()
    report = services.report_build(student=anna, week_start=_monday(2))
    assert report.data["year"]["skills"]["addsub_20"]["n"] == 1
    assert plays_reskill() == (1, 0)


def test_a_game_still_open_when_its_week_is_stored_is_counted_again(classroom):
    from tests.reports.plays import card, finish, say, table

    anna = factories.student(classroom=classroom, name="Anna")
    monday = _monday(1)
    game = table(
        classroom=classroom,
        students=[anna],
        bots=["easy"],
        seed=1,
        at=paris(monday.year, monday.month, monday.day, 10, 0),
        draw=[card(2), card(3), card(5)],
    )
    say(game, 0, "2 + 3 = 5", at=paris(monday.year, monday.month, monday.day, 10, 1))
    one_move(classroom=classroom, student=anna, move="2 + 3 = 5", at=paris(2026, 9, 15, 10, 0))
    built, full = _full(anna, _monday(3))  # week 1 stored with its game still running
    assert built == full
    summary = WeekTally.objects.get(student=anna, week_start=_monday(2)).data["summary"]
    assert [row[0] for row in summary["open"]] == [game.pk]
    finish(game, at=paris(monday.year, monday.month, monday.day, 10, 40))
    built, full = _full(anna, _monday(3))
    assert built == full and built["year"]["games"] == 2 and built["year"]["minutes"] >= 40


def test_older_weeks_and_erased_plays_give_the_figures_of_a_full_count(school, teacher):
    classroom = factories.classroom(school=school, teachers=[teacher])
    kids = [factories.student(classroom=classroom) for _ in range(2)]
    for week in (1, 3, 4, 7, 9):
        monday = _monday(week)
        played_game(
            classroom=classroom,
            students=kids,
            seed=week,
            moves=20,
            at=paris(monday.year, monday.month, monday.day, 10, 0),
        )
    for week in (10, 5, 8, 2, 10):  # later weeks first: the older ones find stored weeks after
        built, full = _full(kids[0], _monday(week))
        assert built == full
    tz = school_tz(school)
    Play.objects.filter(student=kids[0], at__lt=week_bounds(_monday(2), tz)[0]).delete()
    built, full = _full(kids[0], _monday(10))
    assert built == full
