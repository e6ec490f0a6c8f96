"""Celery jobs for the weekly report email: an hourly look for parents due, one send per parent.

Both are safe to run twice: the sent-log row (services.weekly_email_send) lets each parent's
email of a week go once, whatever retries or redeliveries happen.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import date, datetime

from celery import shared_task
from django.db import InterfaceError, OperationalError
from django.utils import timezone

log = logging.getLogger(__name__)

# A mail server or a database that is briefly away is worth retrying (SMTPException is an
# OSError); a bug is not.
RETRY = {
    "autoretry_for": (OSError, OperationalError, InterfaceError),
    "retry_backoff": 30,
    "retry_backoff_max": 600,
    "retry_jitter": True,
    "max_retries": 5,
}


@shared_task(name="reports.mail.tasks.send_weekly_email", **RETRY)
def send_weekly_email(parent_id: int, week_start: str, now: str | None = None) -> str:
    """Send one parent last week's email (returns what happened: sent, already, no_email…)."""
    from . import services

    return services.weekly_email_send(
        parent_id=parent_id,
        week_start=date.fromisoformat(week_start),
        now=datetime.fromisoformat(now) if now else None,
    )


@shared_task(name="reports.mail.tasks.schedule_weekly_emails", ignore_result=True)
def schedule_weekly_emails(now: str | None = None) -> dict[str, int]:
    """Hourly (beat): queue the email of every parent whose children's weekly reports are built.

    Found from the database each time, so an email that could not be queued (the broker was
    down) is queued by the next run. Parents with no email address are skipped and counted.
    Returns the counts: queued, not_queued (broker down), no_email, failed (in-process only).
    """
    from classrooms.models import User
    from kavet_site.queue import enqueue

    from . import selectors

    moment = datetime.fromisoformat(now) if now else timezone.now()
    due = selectors.parents_due(now=moment)
    emails = dict(User.objects.filter(pk__in=[p for p, _w in due]).values_list("pk", "email"))
    counts: Counter[str] = Counter()
    for parent_id, week_start in due:
        if not emails.get(parent_id):
            counts["no_email"] += 1
            continue
        try:
            queued = enqueue(send_weekly_email, (parent_id, week_start.isoformat()), {"now": now})
        except Exception:  # noqa: BLE001
            # Only with tasks run in-process (no broker): the send failed here and now. One
            # parent's failure must not stop the others' emails; its row was let go, so the
            # next hourly run tries again.
            log.exception("weekly email of parent %s not sent", parent_id)
            counts["failed"] += 1
            continue
        counts["queued" if queued else "not_queued"] += 1
    if counts:
        log.info("weekly report emails: %s", dict(counts))
    return dict(counts)
