"""Celery jobs for schools and classes: the weekly erase of play data past its keeping (the demo's
running class game is kept playing by demo.tasks)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import InterfaceError, OperationalError

log = logging.getLogger(__name__)


@shared_task(
    name="classrooms.tasks.retention_erase_weekly",
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=30,
    max_retries=3,
)
def retention_erase_weekly() -> dict[str, int]:
    """Erase the play data past its keeping (classrooms.retention) and log what was erased.

    Idempotent: a retry or a second run the same week finds nothing more to erase.
    """
    from classrooms.retention import retention_erase

    erased = retention_erase()
    for line in erased.describe():
        log.info("retention: %s", line.strip())
    return {label: n for label, n in erased.counts.items() if n}
