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
