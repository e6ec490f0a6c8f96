"""Store the engine's skills on plays recorded before games.services stored them for every
operation (wrong announcements and missed operations were stored without skills).

    python manage.py plays_reskill [--dry-run]

Reads each play's stored operation (its canonical text) with games.engine.skills_of, the one
home of an operation's skills, writes the skills that differ, and drops the week tallies of
the students whose plays changed so that their next reports count those weeks again.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import transaction

from games import engine
from games.models import Play
from reports.models import WeekTally

BATCH = 2000


def plays_reskill(*, dry_run: bool = False) -> tuple[int, int]:
    """(plays read, plays whose stored skills changed)."""
    read = changed = 0
    students: set[int] = set()
    plays = (
        Play.objects.filter(operation__isnull=False)
        .only("id", "student_id", "operation", "skills")
        .order_by("pk")
    )
    batch: list[Play] = []
    for play in plays.iterator(chunk_size=BATCH):
        read += 1
        operation = play.operation
        if not isinstance(operation, dict) or not operation.get("text"):
            continue
        skills = sorted(engine.skills_of(operation))
        if skills != sorted(play.skills or ()):
            play.skills = skills
            batch.append(play)
            students.add(play.student_id)
        if len(batch) >= BATCH:
            changed += _save(batch, dry_run)
    changed += _save(batch, dry_run)
    if students and not dry_run:
        WeekTally.objects.filter(student_id__in=students).delete()
    return read, changed


def _save(batch: list[Play], dry_run: bool) -> int:
    count = len(batch)
    if count and not dry_run:
        with transaction.atomic():
            Play.objects.bulk_update(batch, ["skills"])
    batch.clear()
    return count


class Command(BaseCommand):
    help = "Store the engine's skills on old plays (wrong and missed operations had none)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Count the plays that would change; write nothing.",
        )

    def handle(self, *args, dry_run: bool = False, **options):
        read, changed = plays_reskill(dry_run=dry_run)
        verb = "would change" if dry_run else "changed"
        self.stdout.write(f"{read} plays with an operation read; {changed} {verb}.")
