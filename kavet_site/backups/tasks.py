"""The nightly backup (beat schedule): one archive in KAVET_BACKUP_DIR, the newest KEEP kept."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from .archive import backup_write, backups_prune


@shared_task(name="kavet_site.backups.tasks.nightly_backup", ignore_result=True)
def nightly_backup() -> str:
    directory = settings.KAVET_BACKUP_DIR
    path = backup_write(directory=directory)
    backups_prune(directory=directory, keep=settings.KAVET_BACKUP_KEEP)
    return str(path)
