"""Celery jobs for schools and classes: the weekly erase of play data past its keeping, and the
demo's running class game kept playing."""

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


@shared_task(name="classrooms.tasks.demo_keep_alive_sweep", ignore_result=True)
def demo_keep_alive_sweep() -> int:
    """Where workers run, the beat plays the demo's running class game on (classrooms.demo.alive);
    the moves applied. Idempotent: what is played is what is due, once."""
    from classrooms.demo.alive import demo_play_on, demo_sessions

    applied, seen = 0, set()
    for session in demo_sessions():
        if session.classroom_id in seen:
            continue  # only the newest of a class: the ones before are over for good
        seen.add(session.classroom_id)
        applied += demo_play_on(session=session)
    return applied
