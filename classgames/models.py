"""A class game: the tables a teacher set up together, one games.Game per table.

The link between a class game and its tables lives here (ClassTable), on the class games'
floor: the games floor below knows no class game (README "Layout").
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import Game


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

    @property
    def games(self):
        """Its tables' games (games.Game), through their ClassTable rows: a queryset."""
        return Game.objects.filter(class_table__session=self)


class ClassTable(models.Model):
    """A table of a class game: its games.Game, and the class game it is one of.

    Written with the game, in the transaction that creates it (classgames.services), and never
    changed after: a game is a table of one class game, or of none (a practice game).
    """

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="class_table"
    )
    session = models.ForeignKey(ClassSession, on_delete=models.CASCADE, related_name="tables")

    def __str__(self) -> str:
        return f"Game {self.game_id} of session {self.session_id}"


def session_id_of(game: Game) -> int | None:
    """The class game a game is a table of (None: of none), with no query when the game was read
    with its class_table (games.signals.table_group: the game row under its lock, game_get)."""
    try:
        return game.class_table.session_id
    except ClassTable.DoesNotExist:
        return None


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
