"""manage.py backup [--dir DIR] [--keep N]: write a dated archive of the database and files."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from kavet_site.backups.archive import BackupError, backup_write, backups_prune


class Command(BaseCommand):
    help = "Write a consistent, dated archive of everything a school would lose."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--dir", default=None, help="where (default: KAVET_BACKUP_DIR)")
        parser.add_argument(
            "--keep", type=int, default=None, help="then keep only the newest N archives there"
        )

    def handle(self, *args, dir=None, keep=None, **options) -> None:
        directory = dir or settings.KAVET_BACKUP_DIR
        try:
            path = backup_write(directory=directory)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(str(path))
        if keep is not None:
            for old in backups_prune(directory=directory, keep=keep):
                self.stdout.write(f"deleted {old}")
