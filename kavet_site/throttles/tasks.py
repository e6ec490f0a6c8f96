"""The hourly clean-up of rate-limit counters whose window is over."""

from __future__ import annotations

from celery import shared_task

from . import counters


@shared_task(name="kavet_site.throttles.tasks.sweep_counters", ignore_result=True)
def sweep_counters() -> int:
    """Expired counters are ignored by every read; this only keeps the table small."""
    return counters.sweep()
