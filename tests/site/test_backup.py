"""Backups (issue 39): a school with a term of play is backed up, its database dropped and
restored; every row is the same, the game in progress plays on, the reports rebuild to the same
figures. Runs on the engine of the run: PostgreSQL in `make test`, SQLite in .ci/run's embedded
pass. The database dropped is the test run's own (pytest-django's test database), never the
machine's."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

# The benchmark empties the database the same way before it times a restore.
from benchmarks.bench_backup import empty_the_database
from classrooms import invitations
from classrooms.models import Student
from classrooms.services import TEACHER_LINK
from demo.school import demo_school_build
from games import engine, services
from games.models import Game
from kavet_site.backups.archive import (
    BackupError,
    backup_write,
    backups_prune,
    manifest_read,
    restore_check,
    schema_applied,
)
from reports.models import WeeklyReport, WeekTally
from reports.services import PARENT_CODE
from reports.tasks import build_class_reports
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def every_row() -> dict[str, list[tuple]]:
    """Every row of every table the models know, in primary-key order."""
    return {
        model._meta.db_table: list(model._default_manager.order_by("pk").values_list())
        for model in apps.get_models(include_auto_created=True)
    }


def a_term_of_play():
    """The demo school's weeks of games, moves, reports and a class game in progress, with a
    parent's and a teacher's invitation waiting."""
    summary = demo_school_build(history=True)
    child = summary.child
    invitations.create(PARENT_CODE, target=child, by=child.classroom.teachers.first())
    admin = factories.school_admin(school=summary.school, username="backup-admin")
    invitations.create(TEACHER_LINK, target=summary.school, by=admin, email="new@example.org")
    return summary


def reports_rebuilt(weeks) -> dict:
    """Every class's reports of these weeks built again from the plays alone: their figures."""
    WeekTally.objects.all().delete()
    WeeklyReport.objects.all().delete()
    for classroom_id in sorted({student.classroom_id for student in Student.objects.all()}):
        for week in weeks:
            build_class_reports(classroom_id, week.isoformat())
    return {(r.student_id, r.week_start): r.data for r in WeeklyReport.objects.all()}


def a_running_game() -> Game:
    return Game.objects.filter(status=Game.Status.RUNNING).order_by("pk").first()


def play_one_move(game: Game) -> bool:
    """The first seat that may pass (or say OK) does: True when the move was applied."""
    state = engine.GameState.from_dict(game.state)
    for seat in range(state.n_seats):
        for kind in ("nothing", "ok"):
            if kind in engine.legal_moves(state, seat):
                outcome = services.move_submit(
                    game_id=game.pk, seat=seat, move={"type": kind}, seen_version=game.version
                )
                return outcome.applied
    return False


def test_a_term_of_play_is_backed_up_dropped_restored_and_plays_on(tmp_path):
    a_term_of_play()
    weeks = sorted(set(WeeklyReport.objects.values_list("week_start", flat=True)))
    reports = reports_rebuilt(weeks)  # from the plays as they are (the live game played on)
    before = every_row()
    schema = schema_applied()
    assert reports and before["games_move"] and before["reports_parentinvite"]
    running = a_running_game()
    assert running is not None, "the demo has no game in progress"

    archive = backup_write(directory=tmp_path)
    assert oct(archive.stat().st_mode & 0o777) == "0o600"  # names and password hashes inside
    manifest = manifest_read(archive)
    assert manifest.engine == connection.vendor and manifest.schema == schema

    empty_the_database()
    call_command("restore", str(archive))

    assert every_row() == before  # moves, reports, invitations, pictures: every row
    assert schema_applied() == schema
    # The reports rebuild from the restored plays to the same figures.
    assert reports_rebuilt(weeks) == reports
    # The game in progress plays on (and its new row gets a new id: sequences came back too).
    game = Game.objects.get(pk=running.pk)
    assert play_one_move(game)
    assert Game.objects.get(pk=running.pk).version == running.version + 1


def test_a_restore_refuses_a_database_that_is_not_empty_and_changes_nothing(tmp_path):
    factories.student(classroom=factories.classroom(school=factories.school()), name="Maël")
    archive = backup_write(directory=tmp_path)
    before = every_row()
    with pytest.raises(CommandError, match="not empty"):
        call_command("restore", str(archive))
    assert every_row() == before


def test_a_restore_refuses_what_is_not_a_backup_or_is_from_a_newer_version(tmp_path):
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not a tar")
    with pytest.raises(BackupError, match="not a Kavet backup"):
        restore_check(junk)
    archive = backup_write(directory=tmp_path / "b")
    newer = with_manifest(archive, b'"games": "', b'"games": "9999_from_the_future_')
    with pytest.raises(BackupError, match="newer version"):
        restore_check(newer)
    engine = f'"engine": "{connection.vendor}"'.encode()
    other = "sqlite" if connection.vendor == "postgresql" else "postgresql"
    elsewhere = with_manifest(archive, engine, f'"engine": "{other}"'.encode())
    with pytest.raises(BackupError, match=f"holds a {other} database"):
        restore_check(elsewhere)


def with_manifest(archive: Path, old: bytes, new: bytes) -> Path:
    """A copy of the archive with its manifest changed."""
    changed = archive.with_name(f"changed-{new.hex()[:8]}.tar.gz")
    with tarfile.open(archive) as src, tarfile.open(changed, "w:gz") as dst:
        for member in src.getmembers():
            data = src.extractfile(member).read()
            if member.name == "manifest.json":
                assert old in data
                data = data.replace(old, new, 1)
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data))
    return changed


def test_the_nightly_backup_is_scheduled_and_keeps_the_newest(tmp_path, settings):
    from datetime import UTC, datetime, timedelta

    from kavet_site.backups.tasks import nightly_backup

    entry = settings.CELERY_BEAT_SCHEDULE["nightly-backup"]
    assert entry["task"] == "kavet_site.backups.tasks.nightly_backup"
    settings.KAVET_BACKUP_DIR = str(tmp_path)
    settings.KAVET_BACKUP_KEEP = 3
    start = datetime(2026, 9, 1, 1, 15, tzinfo=UTC)
    for night in range(4):
        backup_write(directory=tmp_path, now=start + timedelta(days=night))
    newest = Path(nightly_backup())
    kept = sorted(p.name for p in tmp_path.glob("kavet-backup-*"))
    assert len(kept) == 3 and newest.name == kept[-1]
    assert kept[0].startswith("kavet-backup-20260903")  # the two oldest nights went
    assert backups_prune(directory=tmp_path, keep=3) == []
