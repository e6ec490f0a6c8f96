"""manage.py restore ARCHIVE: bring a backup back into an empty database."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from kavet_site.backups.archive import BackupError, backup_restore, schema_behind


class Command(BaseCommand):
    help = "Restore an archive of `manage.py backup` into an empty database (refuses any other)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("archive")

    def handle(self, *args, archive: str, **options) -> None:
        try:
            manifest = backup_restore(archive=archive)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"restored the backup of {manifest.created_at} ({manifest.engine})")
        behind = schema_behind()
        if behind:
            self.stdout.write(
                f"it was made by an older version: run `manage.py migrate` ({len(behind)} "
                "apps have newer migrations)"
            )
