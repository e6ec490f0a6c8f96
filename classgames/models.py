"""A class game: the tables a teacher set up together, one games.Game per table."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ClassSession(models.Model):
    """A class game: the tables a teacher set up together for the students present."""

    class Status(models.TextChoices):
        SETUP = "setup", _("Being set up")
        RUNNING = "running", _("Running")
        PAUSED = "paused", _("Paused")
        FINISHED = "finished", _("Finished")

    classroom = models.ForeignKey(
        "classrooms.Classroom", on_delete=models.CASCADE, related_name="class_sessions"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SETUP)
    settings = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # The table keeps the name it had when the model lived in games (no data moved).
        db_table = "games_classsession"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Session {self.pk} ({self.status})"


class ClassAttendance(models.Model):
    """Who was present at the class's last class game, so "Play now" starts with them again.

    The absent are stored, not the present: a child added to the class since is present.
    """

    classroom = models.OneToOneField(
        "classrooms.Classroom", on_delete=models.CASCADE, related_name="attendance"
    )
    absent = models.JSONField(default=list, blank=True)  # student ids
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Attendance of class {self.classroom_id}"
