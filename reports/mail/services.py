"""The weekly report email: sending it once per parent and week, and the parent's on/off choice."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from classrooms.models import User

from . import selectors
from .models import EmailPreference, WeeklyEmail

log = logging.getLogger(__name__)

# A row still "sending" this long after it was taken lost its worker between taking it and
# marking it sent (killed, or the database went away): the next run may send it again. Far
# longer than one send takes, so a slow mail server never gets the same email twice.
STALE_AFTER = timedelta(minutes=30)
# Tries of one week's email (task retries and stale re-takes together) before it is given up.
MAX_ATTEMPTS = 6
UNSUBSCRIBE_SALT = "kavet.reports.mail.unsubscribe"


class Outcome:
    SENT = "sent"
    ALREADY = "already"  # sent before, or another worker has it in hand
    NOTHING = "nothing"  # no child with a report of that week
    NO_EMAIL = "no_email"
    UNSUBSCRIBED = "unsubscribed"
    GONE = "gone"  # the account was deleted, deactivated or is not a parent's


# --- the unsubscribe link --------------------------------------------------------------------


def unsubscribe_token(parent: User) -> str:
    """The parent's id, signed for this one purpose: the link is checked without a lookup."""
    return signing.Signer(salt=UNSUBSCRIBE_SALT).sign(str(parent.pk))


def parent_from_token(token: str) -> User | None:
    """The parent an unsubscribe token was made for; None for a forged or altered one."""
    try:
        parent_id = int(signing.Signer(salt=UNSUBSCRIBE_SALT).unsign(token))
    except (signing.BadSignature, ValueError):
        return None
    return User.objects.filter(pk=parent_id, role=User.Role.PARENT).first()


def site_url(path: str) -> str:
    """The address of a page of the site, as the email links to it (KAVET_SITE_URL: `make demo`
    sets it from HOST and PORT, a production site from its own name)."""
    return f"{settings.KAVET_SITE_URL}{path}"


# --- the parent's choice ----------------------------------------------------------------------


def email_preference_set(
    *, parent: User, weekly: bool, now: datetime | None = None
) -> EmailPreference:
    """Switch a parent's weekly email on or off (the unsubscribe link and the settings page)."""
    now = now or timezone.now()
    with transaction.atomic():
        pref, _created = EmailPreference.objects.select_for_update(no_key=True).get_or_create(
            parent=parent
        )
        if pref.weekly != weekly:
            pref.weekly = weekly
            pref.opted_out_at = None if weekly else now
            pref.save(update_fields=["weekly", "opted_out_at", "updated_at"])
    return pref


# --- sending ------------------------------------------------------------------------------------


@dataclass
class Claim:
    pk: int
    claimed_at: datetime


def _claim(*, parent: User, week_start: date, now: datetime) -> Claim | None:
    """Take the (parent, week) row for this attempt; None when it is not ours to send.

    The unique constraint decides between two workers inserting at once; an existing row is
    locked and taken again only if it is still pending and nobody holds it (a failed send
    let it go, or a crash left it older than STALE_AFTER).
    """
    with transaction.atomic():
        row, created = WeeklyEmail.objects.get_or_create(
            parent=parent, week_start=week_start, defaults={"claimed_at": now}
        )
        if created:
            return Claim(row.pk, now)
        row = WeeklyEmail.objects.select_for_update(no_key=True).get(pk=row.pk)
        if row.status != WeeklyEmail.Status.PENDING:
            return None
        if row.claimed_at is not None and row.claimed_at > now - STALE_AFTER:
            return None
        if row.attempts >= MAX_ATTEMPTS:
            row.status = WeeklyEmail.Status.FAILED
            row.save(update_fields=["status"])
            log.error(
                "weekly email of parent %s for %s given up after %d tries",
                parent.pk,
                week_start,
                row.attempts,
            )
            return None
        row.claimed_at = now
        row.attempts += 1
        row.save(update_fields=["claimed_at", "attempts"])
        return Claim(row.pk, now)


def _ours(claim: Claim):
    return WeeklyEmail.objects.filter(
        pk=claim.pk, status=WeeklyEmail.Status.PENDING, claimed_at=claim.claimed_at
    )


def weekly_email_message(
    *, parent: User, week_start: date, children: list[selectors.ChildWeek]
) -> EmailMultiAlternatives:
    """The email in the parent's language: plain text, a simple HTML copy, unsubscribe headers."""
    unsubscribe = site_url(reverse("reports:mail:unsubscribe", args=[unsubscribe_token(parent)]))
    with translation.override(parent.language or settings.LANGUAGE_CODE):
        context = {
            "parent": parent,
            "week_start": week_start,
            "unsubscribe_url": unsubscribe,
            "settings_url": site_url(reverse("reports:mail:settings")),
            "children": [{"item": c, "url": site_url(c.path)} for c in children],
        }
        subject = " ".join(render_to_string("reports/mail/weekly_subject.txt", context).split())
        context["subject"] = subject  # the HTML copy's <title>: one line, as the subject is
        text = render_to_string("reports/mail/weekly.txt", context)
        html = render_to_string("reports/mail/weekly.html", context)
        language = translation.get_language()
    message = EmailMultiAlternatives(
        subject,
        text,
        settings.DEFAULT_FROM_EMAIL,
        [parent.email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
            "Content-Language": language,
        },
    )
    message.attach_alternative(html, "text/html")
    return message


def weekly_email_send(*, parent_id: int, week_start: date, now: datetime | None = None) -> str:
    """Send one parent the reports of one week, at most once whatever retries happen.

    The row is taken first and marked sent only after the mail server accepted the email. If
    the send raises, the row is let go at once (the email did not leave) and the error goes up
    for the task to retry. A crash after the send but before the mark is the one case that
    sends again, once, when the row has gone stale.
    """
    now = now or timezone.now()
    parent = User.objects.filter(pk=parent_id, role=User.Role.PARENT, is_active=True).first()
    if parent is None:
        return Outcome.GONE
    if not selectors.weekly_email_wanted(parent):
        return Outcome.UNSUBSCRIBED
    if not parent.email:
        return Outcome.NO_EMAIL
    children = selectors.email_children(parent=parent, week_start=week_start)
    if not children:
        return Outcome.NOTHING
    claim = _claim(parent=parent, week_start=week_start, now=now)
    if claim is None:
        return Outcome.ALREADY
    message = weekly_email_message(parent=parent, week_start=week_start, children=children)
    try:
        message.send()
    except Exception:
        _ours(claim).update(claimed_at=None)
        raise
    _ours(claim).update(
        status=WeeklyEmail.Status.SENT, sent_at=timezone.now(), children=len(children)
    )
    return Outcome.SENT


# --- a school's staff: the email seen, and sent now --------------------------------------------


def staff_parents(user: User):
    """The parents a teacher or school admin may preview and send the email to: those with an
    active link to a child of a class they see (a teacher's classes, an admin's whole school)."""
    from classrooms import permissions

    return (
        User.objects.filter(
            role=User.Role.PARENT,
            is_active=True,
            parent_links__revoked_at__isnull=True,
            parent_links__student__in=permissions.staff_students(user),
        )
        .distinct()
        .order_by("username")
    )


def staff_email_children(
    *, user: User, parent: User, now: datetime | None = None
) -> tuple[date, list[selectors.ChildWeek]]:
    """This week's email of a parent as a teacher sees it: the last whole week of the school,
    the parent's children in the classes the user sees only, their reports built when missing
    or changed (reports_fresh, then a build for a child who played that week)."""
    from classrooms import permissions
    from reports import services as report_services

    now = now or timezone.now()
    students = list(
        permissions.staff_students(user)
        .filter(parent_links__parent=parent, parent_links__revoked_at__isnull=True)
        .select_related("classroom__school")
        .distinct()
    )
    if not students:
        return selectors.last_week(user.school, now).week_start, []
    week_start = selectors.last_week(students[0].classroom.school, now).week_start
    fresh = report_services.reports_fresh(students=students, week_start=week_start, now=now)
    for student in students:
        if student.pk not in fresh:
            report_services.report_build(student=student, week_start=week_start, now=now)
    children = selectors.email_children(
        parent=parent, week_start=week_start, within=permissions.staff_students(user)
    )
    return week_start, children


def weekly_email_send_now(*, user: User, parent: User, now: datetime | None = None) -> str:
    """A teacher's "send it now": this week's email (the children of their classes) goes to the
    parent at once, and the week is marked sent so the scheduled run does not send it again."""
    now = now or timezone.now()
    if not parent.email:
        return Outcome.NO_EMAIL
    week_start, children = staff_email_children(user=user, parent=parent, now=now)
    if not children:
        return Outcome.NOTHING
    weekly_email_message(parent=parent, week_start=week_start, children=children).send()
    WeeklyEmail.objects.update_or_create(
        parent=parent,
        week_start=week_start,
        defaults={
            "status": WeeklyEmail.Status.SENT,
            "sent_at": timezone.now(),
            "children": len(children),
            "claimed_at": now,
        },
    )
    return Outcome.SENT


def school_schedule_set(*, school, weekday: int, hour: int):
    """A school admin's choice of the email's day and hour (school time)."""
    from .models import SchoolEmailSchedule

    schedule, _created = SchoolEmailSchedule.objects.update_or_create(
        school=school, defaults={"weekday": weekday, "hour": hour}
    )
    return schedule
