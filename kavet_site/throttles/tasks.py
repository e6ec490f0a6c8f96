"""The hourly clean-up of rate-limit counters whose window is over, and of old sign-in floods."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from . import counters
from .models import SignInFlood


def sweep_floods() -> int:
    """Delete the sign-in floods older than SignInFlood.KEEP_DAYS; how many."""
    since = timezone.now() - timedelta(days=SignInFlood.KEEP_DAYS)
    deleted, _ = SignInFlood.objects.filter(last_at__lt=since).delete()
    return deleted


@shared_task(name="kavet_site.throttles.tasks.sweep_counters", ignore_result=True)
def sweep_counters() -> int:
    """Expired counters are ignored by every read; this only keeps the tables small."""
    return counters.sweep() + sweep_floods()
