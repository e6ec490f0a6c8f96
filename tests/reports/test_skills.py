"""Report figures: a scripted week of plays, computed by hand, equal the built report's."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from classrooms.models import LevelChange
from reports import services
from reports.models import WeeklyReport
from reports.progress import band_for, recommend
from tests import factories
from tests.reports.plays import one_move, paris

WEEK = date(2026, 11, 16)  # a Monday


@pytest.fixture
def anna(classroom):
    student = factories.student(classroom=classroom, name="Anna", number_range=10, tier=1)
    # She joined in September, long before the weeks below.
    LevelChange.objects.filter(student=student).update(changed_at=paris(2026, 9, 1, 8, 0))
    return student


@pytest.fixture
def scripted(classroom, anna):
    """Two weeks of Anna's play, a real game per move, the figures worked out by hand below."""
    # Last week: two right additions within 10 (6 s and 8 s), one wrong sum beyond 10.
    one_move(classroom=classroom, student=anna, at=paris(2026, 11, 10, 10, 0), move="2 + 3 = 5")
    one_move(
        classroom=classroom,
        student=anna,
        at=paris(2026, 11, 10, 10, 5),
        move="2 + 3 = 5",
        react_seconds=8,
    )
    one_move(
        classroom=classroom,
        student=anna,
        at=paris(2026, 11, 10, 10, 10),
        move="8 + 4 = 10",
        table_values=(8, 4, 10),
    )
    # This week. The first game is at 00:30 on Monday in Paris: still Sunday in UTC.
    one_move(
        classroom=classroom,
        student=anna,
        at=datetime(2026, 11, 15, 23, 30, tzinfo=UTC),
        move="2 + 3 = 5",
        react_seconds=4,
    )
    one_move(
        classroom=classroom,
        student=anna,
        at=paris(2026, 11, 17, 9, 0),
        move="1 + 4 = 5",
        table_values=(1, 4, 5),
        react_seconds=12,
    )
    one_move(
        classroom=classroom,
        student=anna,
        at=paris(2026, 11, 17, 9, 5),
        move="8 - 5 = 2",
        table_values=(8, 5, 2),
        react_seconds=3,
    )
    one_move(
        classroom=classroom, student=anna, at=paris(2026, 11, 17, 9, 10), move={"type": "nothing"}
    )
    one_move(
        classroom=classroom,
        student=anna,
        at=paris(2026, 11, 17, 9, 15),
        move={"type": "nothing"},
        table_values=(1, 1, 10),
    )
    # 00:30 next Monday in Paris (Sunday 23:30 UTC): next week's, not in this report.
    one_move(
        classroom=classroom,
        student=anna,
        at=datetime(2026, 11, 22, 23, 30, tzinfo=UTC),
        move="2 + 3 = 5",
    )
    return anna


def test_figures_computed_by_hand_equal_the_report(scripted):
    report = services.report_build(student=scripted, week_start=WEEK)
    data = report.data
    assert data["week_start"] == "2026-11-16" and data["week_end"] == "2026-11-22"

    week = data["week"]
    assert (week["announcements"], week["right"], week["wrong"]) == (3, 2, 1)
    assert week["skills"]["addsub_10"] == {
        "n": 3,
        "right": 2,
        "accuracy": 0.6667,
        "median_ms": 8000,
    }
    assert week["cards_in_tricks"] == 3 + 3
    assert (week["overlooked"], week["nothing_true"]) == (1, 1)
    assert week["mistakes_by_code"] == {"wrong_result": 1, "overlooked": 1}
    assert week["wrong_examples"] == ["8 - 5 = 2"] and week["overlooked_examples"]
    assert week["games"] == 5

    year = data["year"]
    assert (year["announcements"], year["right"], year["wrong"]) == (6, 4, 2)
    # R3.5: the wrong "8 + 4 = 10" is a try at 8 + 4, whose sum 12 is beyond 10.
    assert year["skills"]["addsub_20"] == {"n": 1, "right": 0, "accuracy": 0.0, "median_ms": None}
    assert data["series"]["addsub_10"] == [["2026-11-09", 2, 2], ["2026-11-16", 3, 2]]
    assert data["series"]["addsub_20"] == [["2026-11-09", 1, 0]]
    assert [(lv["number_range"], lv["tier"]) for lv in data["levels"]] == [(10, 1)]
    assert data["recommendation"] is None  # 6 operations at her level: too few to say


def test_building_an_earlier_week_leaves_later_plays_out(scripted):
    report = services.report_build(student=scripted, week_start=WEEK - timedelta(days=7))
    assert report.data["week"]["announcements"] == 3
    assert report.data["year"]["announcements"] == 3
    assert report.data["week"]["games"] == 3
    assert WeeklyReport.objects.filter(student=scripted).count() == 1


def test_a_week_must_start_on_monday(scripted):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        services.report_build(student=scripted, week_start=WEEK + timedelta(days=1))
    assert not WeeklyReport.objects.exists()


@pytest.mark.parametrize(
    ("n", "accuracy", "median_ms", "timed", "band"),
    [
        (4, 1.0, 1000, True, None),
        (10, 0.5, 1000, True, "practising"),
        (10, 0.7, 1000, True, "getting_there"),
        (10, 0.95, 1000, True, "confident"),  # fewer than 20 tries
        (25, 0.95, 25_000, True, "confident"),  # right but slow
        (25, 0.95, 8_000, True, "mastered"),
        (25, 0.95, None, False, "mastered"),  # challenges have no speed
    ],
)
def test_bands(n, accuracy, median_ms, timed, band):
    assert band_for(n, accuracy, median_ms, timed=timed) == band


def test_recommend_up_when_ninety_percent_right_quickly():
    attempts = [(True, 8000)] * 56 + [(False, 3000)] * 4
    proposal = recommend((10, 1), [(False, 1000)] * 30 + attempts)  # older mistakes don't count
    assert proposal == {
        "direction": "up",
        "number_range": 20,
        "tier": 1,
        "n": 60,
        "right": 56,
        "accuracy": 0.9333,
        "median_ms": 8000,
    }
    assert recommend((20, 1), attempts)["tier"] == 2
    assert recommend((20, 3), attempts) is None  # nothing above expert


def test_recommend_nothing_when_slow_or_not_enough():
    assert recommend((10, 1), [(True, 8000)] * 53 + [(False, 1)] * 7) is None  # 88 %
    assert recommend((10, 1), [(True, 30_000)] * 60) is None  # right but slow
    assert recommend((10, 1), [(True, 1000)] * 59) is None  # 59 operations


def test_recommend_down_when_less_than_half_right():
    proposal = recommend((20, 2), [(True, 5000)] * 15 + [(False, 5000)] * 25)
    assert (proposal["direction"], proposal["number_range"], proposal["tier"]) == ("down", 20, 1)
    assert recommend((10, 1), [(False, 5000)] * 40) is None  # nothing below the first level
