"""Progress report rows (built by Celery jobs from games.Play records)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from classrooms.models import Invitation


class WeeklyReport(models.Model):
    """One student's figures for one week (Monday in the school's time zone), rebuilt in place."""

    student = models.ForeignKey(
        "classrooms.Student", on_delete=models.CASCADE, related_name="weekly_reports"
    )
    week_start = models.DateField(_("week of"))
    # The whole report as built by services.report_build (progress.report_from_summary, its shape).
    data = models.JSONField(default=dict)
    built_at = models.DateTimeField(_("built"))
    # What it was built from (services.report_marks: the counted plays, games and levels up to
    # the week's end, and the tally version): a read finding another mark builds it again.
    mark = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        verbose_name = _("weekly report")
        verbose_name_plural = _("weekly reports")
        ordering = ["student", "-week_start"]
        constraints = [
            models.UniqueConstraint(
                fields=["student", "week_start"], name="weeklyreport_unique_week"
            )
        ]

    def __str__(self) -> str:
        return f"{self.student} {self.week_start}"


class WeekTally(models.Model):
    """One student's plays of one week, counted once (progress.week_tally), and for the latest
    week stored by a build the running totals up to its end (progress.Summary): a report
    starts from the totals of the week before instead of reading the weeks before again.

    data: {"version", "week": the week's tally, "summary": the totals (latest week only)}.
    plays_mark fingerprints the student's plays up to the end of the week when it was counted
    (how many, the last id, how many ruled by a challenge, the time zone): a play added,
    erased or ruled since makes the mark differ and the weeks are counted again. Erasing a
    student deletes their tallies with them.
    """

    student = models.ForeignKey(
        "classrooms.Student", on_delete=models.CASCADE, related_name="week_tallies"
    )
    week_start = models.DateField()
    data = models.JSONField(default=dict)
    plays_mark = models.CharField(max_length=120)
    built_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["student", "week_start"], name="weektally_unique_week")
        ]

    def __str__(self) -> str:
        return f"{self.student_id} {self.week_start}"


class ReportJob(models.Model):
    """A teacher's request to build reports now, for one student or a class; shows progress."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Waiting")
        RUNNING = "running", _("Building")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    school = models.ForeignKey("classrooms.School", on_delete=models.CASCADE, related_name="+")
    classroom = models.ForeignKey(
        "classrooms.Classroom", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    student = models.ForeignKey(
        "classrooms.Student", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    week_start = models.DateField()
    total = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    error = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # While building, the worker stamps this after every report: a build whose stamp has gone
    # stale lost its worker, and the reports sweep takes it over (tasks.sweep_report_jobs).
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(classroom__isnull=False) | Q(student__isnull=False),
                name="reportjob_has_target",
            )
        ]

    def __str__(self) -> str:
        return f"{self.student or self.classroom} {self.week_start} ({self.status})"


class LevelRecommendation(models.Model):
    """A proposed change of level, with its evidence, until a teacher accepts or dismisses it."""

    class Status(models.TextChoices):
        OPEN = "open", _("Proposed")
        ACCEPTED = "accepted", _("Accepted")
        DISMISSED = "dismissed", _("Dismissed")
        # The evidence changed (or the level did) before anyone decided.
        WITHDRAWN = "withdrawn", _("Withdrawn")

    student = models.ForeignKey(
        "classrooms.Student", on_delete=models.CASCADE, related_name="level_recommendations"
    )
    from_number_range = models.PositiveSmallIntegerField()
    from_tier = models.PositiveSmallIntegerField()
    number_range = models.PositiveSmallIntegerField(_("number range"))
    tier = models.PositiveSmallIntegerField(_("operations"))
    # {"direction": "up"|"down", "n": 60, "right": 55, "accuracy": 0.92, "median_ms": 8100}
    evidence = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["student"], condition=Q(status="open"), name="levelrec_one_open_per_student"
            )
        ]

    def __str__(self) -> str:
        return f"{self.student}: {self.number_range}/{self.tier} ({self.status})"

    @property
    def is_up(self) -> bool:
        return self.evidence.get("direction") == "up"


class ParentInvite(Invitation):
    """A one-time code a teacher gives a parent, on a printed slip, to link their account to one
    child (the lifecycle: classrooms/invitations.py; this kind: reports.services.PARENT_CODE)."""

    student = models.ForeignKey(
        "classrooms.Student", on_delete=models.CASCADE, related_name="parent_invites"
    )

    class Meta(Invitation.Meta):
        pass

    def __str__(self) -> str:
        return f"{self.student} ({self.created_at:%Y-%m-%d})"
