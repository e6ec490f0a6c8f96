"""Report figures: a scripted week of plays, computed by hand, equal the built report's."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from classrooms.models import LevelChange
from classrooms.reports import services
from classrooms.reports.models import WeeklyReport
from classrooms.reports.progress import band_for, recommend
from tests import factories
from tests.reports.plays import game, paris, play

WEEK = date(2026, 11, 16)  # a Monday


@pytest.fixture
def anna(classroom):
    student = factories.student(classroom=classroom, name="Anna", number_range=10, tier=1)
    # She joined in September, long before the weeks below.
    LevelChange.objects.filter(student=student).update(changed_at=paris(2026, 9, 1, 8, 0))
    return student


@pytest.fixture
def scripted(classroom, anna):
    """Two weeks of Anna's play, the figures of which are worked out by hand below."""
    last_week = game(classroom=classroom, students=[anna], started_at=paris(2026, 11, 10, 10, 0),
                     minutes=25)
    this_week = game(classroom=classroom, students=[anna], started_at=paris(2026, 11, 17, 9, 0),
                     minutes=40, tricks=[
                         {"seat": 0, "cards": [1, 2, 3]},
                         {"seat": 1, "cards": [4, 5, 6]},           # someone else's trick
                         {"seat": 1, "to": 0, "cards": [7, 8, 9, 10]},  # given to Anna with DAOU
                     ])
    # Last week: four right additions within 10, one wrong sum within 20 (no stored skills).
    for i, ms in enumerate([5000, 7000, 9000, 11000]):
        play(anna, last_week, paris(2026, 11, 10, 10, i + 1), skills=("addsub_10",), reaction_ms=ms)
    play(anna, last_week, paris(2026, 11, 10, 10, 9), ok=False, text="7 + 5 = 11", code="wrong_result",
         skills=("addsub_20",))
    # This week. The first play is at 00:30 on Monday in Paris: still Sunday in UTC.
    play(anna, this_week, datetime(2026, 11, 15, 23, 30, tzinfo=UTC),
         skills=("addsub_10",), reaction_ms=4000)
    play(anna, this_week, paris(2026, 11, 17, 9, 1), skills=("addsub_10",), reaction_ms=6000)
    play(anna, this_week, paris(2026, 11, 17, 9, 2), skills=("addsub_10",), reaction_ms=8000)
    play(anna, this_week, paris(2026, 11, 17, 9, 3), skills=("addsub_10", "mult", "multi_step"),
         reaction_ms=12000, n_cards=4, text="(2 + 3) * 2 = 10")
    play(anna, this_week, paris(2026, 11, 17, 9, 4), ok=False, text="8 - 5 = 2", code="wrong_result",
         skills=("addsub_10",),
         reaction_ms=3000)
    play(anna, this_week, paris(2026, 11, 17, 9, 5), ok=False, verdict_kind="invalid",
         code="card_unavailable", text="9 + 9 = 18")  # refused: not a mistake (R3.5)
    play(anna, this_week, paris(2026, 11, 17, 9, 6), kind="nothing", ok=False, missed=True,
         missed_operation="3 + 4 = 7", skills=("addsub_10",))
    play(anna, this_week, paris(2026, 11, 17, 9, 7), kind="nothing", ok=True)
    play(anna, this_week, paris(2026, 11, 17, 9, 8), kind="challenge", ok=None, challenge_outcome="right")
    play(anna, this_week, paris(2026, 11, 17, 9, 9), kind="challenge", ok=None, challenge_outcome="false")
    # 00:30 next Monday in Paris (Sunday 23:30 UTC): next week's, not in this report.
    play(anna, this_week, datetime(2026, 11, 22, 23, 30, tzinfo=UTC),
         skills=("div",), reaction_ms=1000)
    return anna


def test_figures_computed_by_hand_equal_the_report(scripted):
    report = services.report_build(student=scripted, week_start=WEEK)
    data = report.data
    assert data["week_start"] == "2026-11-16" and data["week_end"] == "2026-11-22"

    week = data["week"]
    assert (week["announcements"], week["right"], week["wrong"]) == (5, 4, 1)
    assert week["accuracy"] == 0.8
    assert week["cards_in_tricks"] == 3 + 3 + 3 + 4
    assert week["skills"]["addsub_10"] == {"n": 5, "right": 4, "accuracy": 0.8, "median_ms": 7000}
    assert week["skills"]["mult"] == {"n": 1, "right": 1, "accuracy": 1.0, "median_ms": 12000}
    assert week["skills"]["multi_step"]["n"] == 1
    assert "div" not in week["skills"]  # that play belongs to next week
    assert week["skills"]["spotting"] == {"n": 2, "right": 1, "accuracy": 0.5, "median_ms": None}
    assert week["skills"]["noticing"] == {"n": 2, "right": 1, "accuracy": 0.5, "median_ms": None}
    assert (week["right_challenges"], week["false_challenges"]) == (1, 1)
    assert (week["overlooked"], week["nothing_true"]) == (1, 1)
    assert week["mistakes_by_code"] == {"wrong_result": 1, "overlooked": 1}
    assert week["mistakes_by_skill"] == {"addsub_10": 2}
    assert week["overlooked_examples"] == ["3 + 4 = 7"]
    assert week["wrong_examples"] == ["8 - 5 = 2"]
    assert (week["games"], week["minutes"], week["cards_won"]) == (1, 40, 3 + 4)

    year = data["year"]
    assert (year["announcements"], year["right"], year["wrong"]) == (10, 8, 2)
    # Right times 4,5,6,7,8,9,11,12 s: the median is 7.5 s.
    assert year["skills"]["addsub_10"] == {"n": 9, "right": 8, "accuracy": 0.8889, "median_ms": 7500}
    assert year["skills"]["addsub_20"] == {"n": 1, "right": 0, "accuracy": 0.0, "median_ms": None}
    assert (year["games"], year["minutes"]) == (2, 25 + 40)

    assert data["bands"]["addsub_10"]["band"] == "confident"  # 8/9 right, fewer than 20 tries
    assert data["bands"]["addsub_20"]["band"] is None  # one try: not enough to say
    assert data["series"]["addsub_10"] == [["2026-11-09", 4, 4], ["2026-11-16", 5, 4]]
    assert data["series"]["addsub_20"] == [["2026-11-09", 1, 0]]
    assert [(lv["number_range"], lv["tier"]) for lv in data["levels"]] == [(10, 1)]
    assert data["recommendation"] is None  # 10 operations at her level: too few to say


def test_building_an_earlier_week_leaves_later_plays_out(scripted):
    report = services.report_build(student=scripted, week_start=WEEK - timedelta(days=7))
    assert report.data["week"]["announcements"] == 5
    assert report.data["year"]["announcements"] == 5
    assert report.data["week"]["games"] == 1 and report.data["week"]["minutes"] == 25
    assert WeeklyReport.objects.filter(student=scripted).count() == 1


def test_a_week_must_start_on_monday(scripted):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        services.report_build(student=scripted, week_start=WEEK + timedelta(days=1))
    assert not WeeklyReport.objects.exists()


@pytest.mark.parametrize(("n", "accuracy", "median_ms", "timed", "band"), [
    (4, 1.0, 1000, True, None),
    (10, 0.5, 1000, True, "practising"),
    (10, 0.7, 1000, True, "getting_there"),
    (10, 0.95, 1000, True, "confident"),      # fewer than 20 tries
    (25, 0.95, 25_000, True, "confident"),    # right but slow
    (25, 0.95, 8_000, True, "mastered"),
    (25, 0.95, None, False, "mastered"),      # challenges have no speed
])
def test_bands(n, accuracy, median_ms, timed, band):
    assert band_for(n, accuracy, median_ms, timed=timed) == band


def test_recommend_up_when_ninety_percent_right_quickly():
    attempts = [(True, 8000)] * 56 + [(False, 3000)] * 4
    proposal = recommend((10, 1), [(False, 1000)] * 30 + attempts)  # older mistakes don't count
    assert proposal == {"direction": "up", "number_range": 20, "tier": 1, "n": 60, "right": 56,
                        "accuracy": 0.9333, "median_ms": 8000}
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
