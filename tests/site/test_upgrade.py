"""Upgrades lose nothing (issue 39): a database made by an older commit (the demo school with
weeks of play and a class game in progress, tests/fixtures/upgrade/, made by its refresh.py)
is migrated to today's schema; every row it had is still there, the game in progress plays on
and the reports build to the figures the old version built.

SQLite only (the fixture is the embedded database): it runs in .ci/run's embedded pass."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection, connections

from classrooms.models import Student
from games.models import Game, Move, Play
from kavet_site.backups.archive import schema_applied, schema_behind
from reports.models import WeeklyReport
from tests.site.test_backup import play_one_move, reports_rebuilt

FIXTURE_COMMIT = "4f98c7a"  # 2026-12-02: 8 migrations ago, among them a data migration
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "upgrade" / f"{FIXTURE_COMMIT}.sqlite3"

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "") != "", reason="the fixture is a SQLite database"
    ),
]


def test_a_database_of_an_older_commit_migrates_plays_on_and_reports():
    assert FIXTURE.exists()
    name = connection.settings_dict["NAME"]
    connections.close_all()
    for path in (f"{name}-wal", f"{name}-shm"):
        if os.path.exists(path):
            os.remove(path)
    shutil.copyfile(FIXTURE, name)  # the test run's own database becomes the old one
    assert schema_behind(), "the fixture is not older than the code: nothing to upgrade"
    counts = {model: model.objects.count() for model in (Student, Game, Move, Play)}
    # Only the columns the old schema has (today's model has more, e.g. WeeklyReport.mark).
    old_reports = {
        (student, week): data
        for student, week, data in WeeklyReport.objects.values_list(
            "student_id", "week_start", "data"
        )
    }
    assert all(counts.values()) and old_reports

    call_command("migrate", "--no-input", verbosity=0)

    assert schema_behind() == [] and schema_applied()
    assert {model: model.objects.count() for model in counts} == counts
    running = Game.objects.filter(status=Game.Status.RUNNING).order_by("pk").first()
    assert running is not None
    weeks = sorted({week for _student, week in old_reports})
    rebuilt = reports_rebuilt(weeks[:-1])  # the weeks over before the old version's last build
    assert rebuilt and all(old_reports[key] == figures for key, figures in rebuilt.items())
    assert play_one_move(running)
    assert Game.objects.get(pk=running.pk).version == running.version + 1
