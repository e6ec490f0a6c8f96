"""Retention: play data is erased after the end of the school year KAVET_RETENTION_YEARS after
its own (classrooms.retention), by the retention_erase command and the weekly job.

The history spans four school years (2023-2024 to 2026-2027) and is played through
games.services with a clock standing in for timezone.now; "today" is 20 November 2026, so with
the default of 2 years the cut-off is 1 August 2024 (Paris, the test school's time zone).
"""

from __future__ import annotations

import io
import re
from datetime import date, timedelta

import pytest
from django.core.management import call_command

from classgames.models import ClassSession
from classgames.services import class_table_start
from classrooms import retention
from classrooms.models import Classroom, LevelChange, ParentLink, Student, User
from classrooms.services import school_year_current
from classrooms.tasks import retention_erase_weekly
from games import services
from games.models import Game, Move, Play, Seat
from reports import services as report_services
from reports.mail.models import WeeklyEmail
from reports.models import LevelRecommendation, ReportJob, WeeklyReport, WeekTally
from tests import factories
from tests.reports.plays import clock_at, finish, one_move, paris, table

TODAY = paris(2026, 11, 20, 10, 0)
CUTOFF = paris(2024, 8, 1)
MODELS = (
    Game,
    Seat,
    Move,
    Play,
    ClassSession,
    WeeklyReport,
    WeekTally,
    ReportJob,
    LevelRecommendation,
    WeeklyEmail,
)
UNTOUCHED = (Student, Classroom, User, ParentLink, LevelChange)
WORDS = {
    Game: "games?",
    Seat: "seats? at tables?",
    Move: "moves?",
    Play: "plays? of students?",
    ClassSession: "class games?",
    WeeklyReport: "weekly reports?",
    WeekTally: "week tall(?:y|ies)",
    ReportJob: "report-build requests?",
    LevelRecommendation: "level recommendations?",
    WeeklyEmail: "weekly-email records?",
}


def counts() -> dict[type, int]:
    return {model: model.objects.count() for model in MODELS + UNTOUCHED}


def printed(output: str) -> dict[type, int]:
    """The number the command printed for each kind (0 when it printed no line for it)."""
    found = {}
    for model, words in WORDS.items():
        match = re.search(rf"^\s+(\d+) {words}\b", output, re.MULTILINE)
        found[model] = int(match[1]) if match else 0
    return found


def run(*args: str) -> str:
    out = io.StringIO()
    with clock_at(TODAY):
        call_command("retention_erase", *args, stdout=out)
    return out.getvalue()


def class_game(*, classroom, students, at, end: bool) -> tuple[ClassSession, Game]:
    """A class game with one table, set up and started at `at` through games.services."""
    with clock_at(at):
        session = ClassSession.objects.create(
            classroom=classroom, status=ClassSession.Status.RUNNING
        )
        game = class_table_start(
            session=session,
            number=1,
            players=[{"student": s} for s in students],
            settings={"turn_time": 120, "challenge_window": 10},
        )
    if end:
        finish(game, at=at + timedelta(minutes=20))
    return session, game


@pytest.fixture
def history(classroom, students):
    """Games, plays, reports, tallies, build requests and email records of four school years."""
    anna, brieuc = students[0], students[1]
    parent = factories.parent(school=classroom.school, username="mam")
    ParentLink.objects.create(parent=parent, student=anna)
    games = {
        # 2023-2024: past its keeping
        "old": one_move(
            classroom=classroom, student=anna, move="2 + 3 = 5", at=paris(2023, 10, 10, 9)
        ),
        # the last evening of 2023-2024, in the school's time zone (22:00 in UTC)
        "last_evening": one_move(
            classroom=classroom, student=anna, move="2 + 3 = 5", at=paris(2024, 7, 31, 23, 50)
        ),
        # 2024-2025, from its first minutes: kept until 31 July 2027
        "first_morning": one_move(
            classroom=classroom, student=anna, move="2 + 3 = 5", at=paris(2024, 8, 1, 0, 5)
        ),
        "y2025": one_move(
            classroom=classroom, student=brieuc, move="2 + 3 = 5", at=paris(2025, 3, 11, 10)
        ),
        "y2026": one_move(
            classroom=classroom, student=anna, move="2 + 3 = 5", at=paris(2026, 10, 13, 10)
        ),
        # a table left running since 2023: never erased while it runs
        "running": table(
            classroom=classroom, students=[anna], bots=["easy"], seed=3, at=paris(2023, 11, 6, 9)
        ),
    }
    with clock_at(paris(2023, 12, 1, 9)):
        games["never_started"] = services.game_create(
            school=classroom.school,
            classroom=classroom,
            players=[{"student": brieuc}, {"bot": "easy"}],
            settings={"turn_time": 120, "challenge_window": 10},
        )
    sessions = {}
    sessions["old"], games["old_table"] = class_game(
        classroom=classroom, students=[anna, brieuc], at=paris(2024, 2, 5, 9), end=True
    )
    sessions["old_running"], games["old_running_table"] = class_game(
        classroom=classroom, students=[anna, brieuc], at=paris(2024, 3, 4, 9), end=False
    )
    for week in (date(2023, 10, 9), date(2024, 7, 29), date(2025, 3, 10), date(2026, 10, 12)):
        with clock_at(paris(week.year, week.month, week.day, 20) + timedelta(days=6)):
            report_services.report_build(student=anna, week_start=week)
            ReportJob.objects.create(school=classroom.school, student=anna, week_start=week)
    # The week of 22 July 2024 ends before the cut-off; that of 29 July 2024 runs across it.
    for week in (date(2023, 10, 9), date(2024, 7, 22), date(2024, 7, 29), date(2025, 3, 10)):
        WeeklyEmail.objects.create(parent=parent, week_start=week, status=WeeklyEmail.Status.SENT)
    # Level recommendations: two made before the cut-off (one dismissed, one never decided),
    # one made on the evening before it (22:00 in UTC), and one of 2025 that a teacher accepted.
    for student, status, at in (
        (anna, LevelRecommendation.Status.DISMISSED, paris(2023, 11, 20, 9)),
        (brieuc, LevelRecommendation.Status.OPEN, paris(2024, 7, 31, 23, 30)),
        (anna, LevelRecommendation.Status.ACCEPTED, paris(2025, 1, 13, 9)),
    ):
        rec = LevelRecommendation.objects.create(
            student=student,
            from_number_range=10,
            from_tier=1,
            number_range=20,
            tier=1,
            evidence={"direction": "up", "n": 60, "right": 57, "accuracy": 0.95},
            status=status,
        )
        LevelRecommendation.objects.filter(pk=rec.pk).update(created_at=at)
    return {"games": games, "sessions": sessions, "parent": parent}


ERASED_GAMES = ("old", "last_evening", "never_started", "old_table")
KEPT_GAMES = ("first_morning", "y2025", "y2026", "running", "old_running_table")


def test_the_rule_in_school_years():
    # R: the data of 2024-2025 is kept until the end of 2026-2027.
    assert retention.kept_until("2024-2025") == date(2027, 7, 31)
    assert retention.cutoff_date(date(2027, 7, 31)) == date(2024, 8, 1)
    assert retention.cutoff_date(date(2027, 8, 1)) == date(2025, 8, 1)
    assert retention.cutoff_date(TODAY.date()) == CUTOFF.date()


def test_school_year_bounds_agree_with_school_year_current():
    for start in range(2020, 2031):
        year = f"{start}-{start + 1}"
        first, last = retention.school_year_start(year), retention.school_year_end(year)
        assert school_year_current(first) == year
        assert school_year_current(last) == year
        assert school_year_current(first - timedelta(days=1)) != year
        assert school_year_current(last + timedelta(days=1)) != year
        # Whatever the day, the cut-off lies after the end of every year whose keeping is over.
        for day in (first, last, first + timedelta(days=100)):
            cut = retention.cutoff_date(day)
            older = f"{cut.year - 1}-{cut.year}"
            assert (
                retention.kept_until(older)
                < day
                <= retention.kept_until(f"{cut.year}-{cut.year + 1}")
            )


def test_retention_years_setting(settings):
    settings.KAVET_RETENTION_YEARS = 1
    assert retention.kept_until("2024-2025") == date(2026, 7, 31)
    assert retention.cutoff_date(TODAY.date()) == date(2025, 8, 1)


def test_retention_command_on_a_dated_history(history):
    games = history["games"]
    ids = {name: game.pk for name, game in games.items()}
    old_plays = Play.objects.filter(game_id__in=[ids[n] for n in ERASED_GAMES]).count()
    assert old_plays > 0
    running_seats = Seat.objects.filter(game_id=ids["running"]).count()
    before = counts()

    output = run()

    after = counts()
    gone = {model: before[model] - after[model] for model in MODELS}
    # exactly the games over before 1 August 2024 are gone, with everything that hangs from them
    assert set(Game.objects.values_list("pk", flat=True)) == {ids[n] for n in KEPT_GAMES}
    assert gone[Game] == len(ERASED_GAMES)
    assert not Play.objects.filter(game_id__in=[ids[n] for n in ERASED_GAMES]).exists()
    assert gone[Play] == old_plays
    assert not Seat.objects.filter(game_id__in=[ids[n] for n in ERASED_GAMES]).exists()
    assert not Move.objects.filter(game_id__in=[ids[n] for n in ERASED_GAMES]).exists()
    # the running tables of 2023-2024 and their class game are still there, and still running
    assert Game.objects.get(pk=ids["running"]).status == Game.Status.RUNNING
    assert Seat.objects.filter(game_id=ids["running"]).count() == running_seats
    assert set(ClassSession.objects.values_list("pk", flat=True)) == {
        history["sessions"]["old_running"].pk
    }
    # reports, tallies and build requests: weeks wholly before the cut-off only
    assert set(WeeklyReport.objects.values_list("week_start", flat=True)) == {
        date(2024, 7, 29),
        date(2025, 3, 10),
        date(2026, 10, 12),
    }
    assert not WeekTally.objects.filter(week_start__lt=date(2024, 7, 29)).exists()
    assert WeekTally.objects.filter(week_start__gte=date(2024, 7, 29)).exists()
    assert set(ReportJob.objects.values_list("week_start", flat=True)) == {
        date(2024, 7, 29),
        date(2025, 3, 10),
        date(2026, 10, 12),
    }
    kept = LevelRecommendation.objects.values_list("status", flat=True)
    assert list(kept) == [LevelRecommendation.Status.ACCEPTED]  # made in 2025: kept
    assert set(WeeklyEmail.objects.values_list("week_start", flat=True)) == {
        date(2024, 7, 29),
        date(2025, 3, 10),
    }
    # students, classes, accounts, parent links and level history: not play data
    for model in UNTOUCHED:
        assert after[model] == before[model], model
    # what it printed is what it erased
    assert "2024-08-01" in output
    assert printed(output) == gone
    assert all(gone[model] > 0 for model in MODELS)


def test_dry_run_changes_nothing_and_counts_what_the_run_erases(history):
    before = counts()
    dry = run("--dry-run")
    assert counts() == before
    assert "Dry run" in dry
    real = run()
    assert printed(dry) == printed(real)
    assert printed(real) == {model: before[model] - counts()[model] for model in MODELS}


def test_before_overrides_the_cut_off(history):
    ids = {name: game.pk for name, game in history["games"].items()}
    output = run("--before", "2025-08-01")
    assert "2025-08-01" in output
    assert not Game.objects.filter(pk__in=[ids["first_morning"], ids["y2025"]]).exists()
    assert Game.objects.filter(pk__in=[ids["y2026"], ids["running"]]).count() == 2


def test_a_bad_before_is_refused(db):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="YYYY-MM-DD"):
        run("--before", "1/8/2024")


def test_the_weekly_job_twice_is_once(history):
    with clock_at(TODAY):
        first = retention_erase_weekly.delay().get()
    after_first = counts()
    with clock_at(TODAY):
        second = retention_erase_weekly.delay().get()
    assert first["games.Game"] == len(ERASED_GAMES)
    assert second == {}
    assert counts() == after_first
    assert "Nothing is dated before 2024-08-01" in run()


def test_games_erase_before_in_small_batches(history):
    ids = {name: game.pk for name, game in history["games"].items()}
    erased = services.games_erase_before(before=CUTOFF, batch=1)
    assert erased["games.Game"] == len(ERASED_GAMES)
    assert erased["classgames.ClassSession"] == 1
    assert set(Game.objects.values_list("pk", flat=True)) == {ids[n] for n in KEPT_GAMES}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_erase_waits_for_a_game_locked_elsewhere_then_erases_it(classroom, students):
    """The game row is locked first: a transaction holding an old game (as student_games_erase
    does) makes the erase wait, and the game goes once that transaction commits."""
    import threading

    from django.db import connection, connections, transaction

    from tests.conftest import need_service

    need_service(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL) for row locks")
    old = one_move(
        classroom=classroom, student=students[0], move="2 + 3 = 5", at=paris(2023, 10, 10, 9)
    )
    locked, release = threading.Event(), threading.Event()
    done: list[dict] = []
    errors: list[BaseException] = []

    def hold() -> None:
        try:
            with transaction.atomic():
                Game.objects.select_for_update(no_key=True).get(pk=old.pk)
                locked.set()
                release.wait(timeout=20)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    def erase() -> None:
        try:
            locked.wait(timeout=20)
            done.append(services.games_erase_before(before=CUTOFF))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=hold), threading.Thread(target=erase)]
    for t in threads:
        t.start()
    assert locked.wait(timeout=20)
    threads[1].join(timeout=1.0)
    assert threads[1].is_alive() and not done, "the erase did not wait for the game's lock"
    release.set()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads) and not errors, errors
    assert done[0]["games.Game"] == 1
    assert not Game.objects.filter(pk=old.pk).exists()
