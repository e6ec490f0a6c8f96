"""A parent's choice about the weekly email, and the log that makes each week's email go once."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class EmailPreference(models.Model):
    """Whether a parent gets the weekly email; no row means yes (the default for every parent)."""

    parent = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="report_email_preference"
    )
    weekly = models.BooleanField(_("weekly email"), default=True)
    opted_out_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.parent_id}: {'on' if self.weekly else 'off'}"


class WeeklyEmail(models.Model):
    """One parent's email for one report week. The unique (parent, week) row is taken before
    the email is sent and marked sent after the mail server accepted it, so a redelivered or
    retried job sends nothing again; a row left pending by a crash is taken again only once
    it is older than services.STALE_AFTER."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Sending")
        SENT = "sent", _("Sent")
        FAILED = "failed", _("Failed")

    parent = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="weekly_emails"
    )
    week_start = models.DateField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    # When the current attempt took the row; empty once a failed attempt let it go.
    claimed_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=1)
    sent_at = models.DateTimeField(null=True, blank=True)
    children = models.PositiveSmallIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["parent", "week_start"], name="weeklyemail_once_a_week")
        ]

    def __str__(self) -> str:
        return f"{self.parent_id} {self.week_start} ({self.status})"


class SchoolEmailSchedule(models.Model):
    """When a school's weekly email goes out: a weekday and an hour in the school's time zone,
    in the week after the report week (no row: Monday from midnight, once the reports are
    built). Set by the school's admin (views.school_email_settings)."""

    class Weekday(models.IntegerChoices):
        MONDAY = 0, _("Monday")
        TUESDAY = 1, _("Tuesday")
        WEDNESDAY = 2, _("Wednesday")
        THURSDAY = 3, _("Thursday")
        FRIDAY = 4, _("Friday")
        SATURDAY = 5, _("Saturday")
        SUNDAY = 6, _("Sunday")

    school = models.OneToOneField(
        "classrooms.School", on_delete=models.CASCADE, related_name="email_schedule"
    )
    weekday = models.PositiveSmallIntegerField(
        _("day of the weekly email"), choices=Weekday.choices, default=Weekday.MONDAY
    )
    hour = models.PositiveSmallIntegerField(_("hour of the weekly email"), default=0)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.school_id}: {self.weekday} {self.hour}h"


class OutboxEmail(models.Model):
    """An email kept instead of sent (outbox.OutboxBackend, the demo's backend when DEBUG):
    read on the outbox page, which answers 404 unless DEBUG."""

    to = models.CharField(max_length=500)
    subject = models.CharField(max_length=500)
    text = models.TextField()
    html = models.TextField(blank=True)
    headers = models.JSONField(default=dict)
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-sent_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.to}: {self.subject}"
