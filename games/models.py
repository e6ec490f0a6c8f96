"""A game, its seats, its append-only list of moves, and what each student played.

The engine's state (games.engine) is stored as JSON on the game row; `version` counts the
moves applied. Only games/services/ changes these rows, under a row lock.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from classrooms.names import name_for_display


class Game(models.Model):
    """One table: the engine state, its version, and the next time something is due."""

    class Kind(models.TextChoices):
        CLASS = "class", _("Class game")
        PRACTICE = "practice", _("Practice")

    class Status(models.TextChoices):
        SETUP = "setup", _("Not started")
        RUNNING = "running", _("Running")
        PAUSED = "paused", _("Paused")
        FINISHED = "finished", _("Finished")
        ABANDONED = "abandoned", _("Ended early")

    school = models.ForeignKey("classrooms.School", on_delete=models.CASCADE, related_name="games")
    classroom = models.ForeignKey(
        "classrooms.Classroom",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="games",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.CLASS)
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.SETUP, db_index=True
    )
    label = models.CharField(_("table"), max_length=40, blank=True)
    # engine GameConfig.to_dict() (rules, deck, time limits) and the deck's seed (R1.4)
    config = models.JSONField(default=dict)
    seed = models.BigIntegerField()
    draw_order = models.JSONField(null=True, blank=True)
    state = models.JSONField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0)
    # When the running time limit (turn, challenge window...) runs out, and when a computer
    # player is due to act: a request or the periodic task applies whatever is due.
    timer_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    bot_due_at = models.DateTimeField(null=True, blank=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    last_move_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When the current phase (turn, challenge window...) began: reaction times count from here.
    phase_started_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.display_label

    @property
    def next_due_at(self):
        """When the next move of a running game falls due: its time limit or a computer player
        (games.services apply it). The table names it, so a tablet asks for the table then."""
        if self.status != self.Status.RUNNING:
            return None
        due = [t for t in (self.timer_deadline, self.bot_due_at) if t is not None]
        return min(due) if due else None

    @property
    def display_label(self) -> str:
        """The table's name in the reader's language: the stored label holds no translated words.

        A class table stores its number ("3" is shown "Table 3"), a practice game nothing;
        any other label is a name somebody chose and is shown as it is.
        """
        label = (self.label or "").strip()
        if label.isdigit():
            return gettext("Table %(number)s") % {"number": label}
        if label:
            return label
        if self.kind == self.Kind.PRACTICE:
            return gettext("Practice")
        return gettext("Game %(number)s") % {"number": self.pk}


class Seat(models.Model):
    """A place at a table: a student, or a computer player of some strength (R8)."""

    class Bot(models.TextChoices):
        # The engine's strengths (games.engine.BOT_STRENGTHS, R8) with their words for pages;
        # tests/games/test_services.py checks the two lists are the same.
        EASY = "easy", _("easy")
        MEDIUM = "medium", _("medium")
        HARD = "hard", _("hard")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    student = models.ForeignKey(
        "classrooms.Student", null=True, blank=True, on_delete=models.SET_NULL, related_name="seats"
    )
    bot = models.CharField(max_length=10, choices=Bot.choices, blank=True)
    name = models.CharField(max_length=40)
    score = models.IntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    # When this seat's tablet last had the table open (games.polling, every 30 s at most): the
    # live view's "tablet has gone quiet", and the first turn's fair start (R4.9).
    last_seen_at = models.DateTimeField(null=True, blank=True)
    # (When a seat last moved is its latest Move row: no stamp of its own to write per move.)

    class Meta:
        ordering = ["game", "position"]
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="seat_unique_position")
        ]

    def __str__(self) -> str:
        return self.display_name

    @property
    def display_name(self) -> str:
        """The name shown for this seat, in the reader's language.

        A computer player created without a name stores none (a name saved in the creator's
        language would stay in it forever); it is "Computer 1", "Computer 2"... by its order
        among the table's unnamed computer players. games.selectors.name_seats numbers a whole
        table without a query per seat.
        """
        if self.name:
            # A seat copies its student's name when the game starts: one from before names
            # were checked (classrooms.names) loses its hidden direction controls here.
            return name_for_display(self.name)
        if not self.bot:
            return "?"
        number = getattr(self, "_bot_number", None)
        if number is None:
            number = (
                1
                + Seat.objects.filter(game_id=self.game_id, position__lt=self.position, name="")
                .exclude(bot="")
                .count()
            )
        return gettext("Computer %(number)d") % {"number": number}


class Move(models.Model):
    """One applied move, append-only: the game is its seed folded over these (R9.2)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    number = models.PositiveIntegerField()  # 1, 2, ... ; game.version after applying it
    seat = models.PositiveSmallIntegerField(null=True, blank=True)  # None for timeouts
    payload = models.JSONField()  # the engine move as applied
    events = models.JSONField(default=list)  # the engine events it caused
    by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="move_unique_number")
        ]

    def __str__(self) -> str:
        return f"Move {self.number} of game {self.game_id}"


class Play(models.Model):
    """What one student did, for the progress reports: announcements, challenges, misses."""

    class Kind(models.TextChoices):
        ANNOUNCE = "announce", _("Operation")
        NOTHING = "nothing", _("Nothing to do")
        CHALLENGE = "challenge", _("Kavet 'm eus!")

    student = models.ForeignKey(
        "classrooms.Student", on_delete=models.CASCADE, related_name="plays"
    )
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="plays")
    move = models.ForeignKey(
        Move, null=True, blank=True, on_delete=models.SET_NULL, related_name="plays"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    at = models.DateTimeField(db_index=True)
    text = models.CharField(max_length=200, blank=True)
    ok = models.BooleanField(null=True)  # None while not judged
    verdict_kind = models.CharField(max_length=10, blank=True)  # "", "invalid", "wrong"
    code = models.CharField(max_length=40, blank=True)
    operation = models.JSONField(null=True, blank=True)  # cards, operators, steps, value
    skills = models.JSONField(default=list, blank=True)  # engine skills_of(...)
    n_cards = models.PositiveSmallIntegerField(default=0)
    uses_x = models.BooleanField(default=False)
    tier = models.PositiveSmallIntegerField()
    number_range = models.PositiveSmallIntegerField()
    reaction_ms = models.PositiveIntegerField(null=True, blank=True)
    challenge_outcome = models.CharField(max_length=10, blank=True)  # "", "right", "false"
    # A "nothing to do" that was false: the operation that was possible (R5.6)
    missed = models.BooleanField(default=False)
    missed_operation = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["at", "pk"]
        indexes = [models.Index(fields=["student", "at"], name="play_student_at")]

    def __str__(self) -> str:
        return f"{self.kind} by student {self.student_id} at {self.at:%Y-%m-%d %H:%M}"


class PracticeGoal(models.Model):
    """A teacher's practice goal: "5 games" or "10 operations with ×" by a date (issue 12).

    For one child, or with no child for the whole class. What each child has done is counted
    from their own practice games since the goal was set (games.practice.goal_count).
    """

    MAX_TARGET = 100

    class Kind(models.TextChoices):
        GAMES = "games", _("practice games")
        OPERATIONS = "operations", _("right operations")

    class Operator(models.TextChoices):
        ANY = "", _("any sign")
        PLUS = "+", "+"
        MINUS = "-", "−"
        TIMES = "*", "×"
        DIVIDE = "/", "÷"

    classroom = models.ForeignKey(
        "classrooms.Classroom", on_delete=models.CASCADE, related_name="practice_goals"
    )
    student = models.ForeignKey(
        "classrooms.Student",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="practice_goals",
    )
    kind = models.CharField(_("goal"), max_length=10, choices=Kind.choices)
    operator = models.CharField(_("with"), max_length=1, choices=Operator.choices, blank=True)
    target = models.PositiveSmallIntegerField(_("how many"))
    due_on = models.DateField(_("by"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["due_on", "pk"]

    def __str__(self) -> str:
        return (
            f"{self.target} {self.kind}{self.operator} by {self.due_on} (class {self.classroom_id})"
        )


class Tablet(models.Model):
    """A tablet id the server handed out (signed in the tablet's cookie), and when it was last seen.

    An id not seen for games.tablets.TABLET_DAYS is forgotten: a cookie naming it (or an id the
    server never handed out) is a new tablet, so ids hoarded long ago are worth nothing.
    """

    ident = models.CharField(max_length=40, primary_key=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"tablet {self.ident[:6]}… seen {self.last_seen_at:%Y-%m-%d}"


class TabletSignin(models.Model):
    """This tablet signed this child in with the right pictures: one of the child's own tablets.

    Wrong pictures typed on the child's own tablets are not counted with the strangers' (those
    of every other tablet, which share one small budget per child), so a guesser elsewhere
    never keeps the child out of the tablets they use.
    """

    tablet = models.ForeignKey(Tablet, on_delete=models.CASCADE, related_name="signins")
    student = models.ForeignKey(
        "classrooms.Student", on_delete=models.CASCADE, related_name="tablet_signins"
    )
    signed_in_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tablet", "student"], name="tabletsignin_unique")
        ]

    def __str__(self) -> str:
        return f"{self.tablet_id[:6]}… signed in student {self.student_id}"
