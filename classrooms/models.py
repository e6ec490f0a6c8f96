"""Schools (the tenant boundary), users and their roles, classes, students and level history."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .names import NameField


class Programme(models.TextChoices):
    """The official expectations a school's reports set each skill against (the data, with its
    sources, is in reports/programmes/)."""

    FR = "fr", _("France: programme of cycles 2 and 3")
    DE = "de", _("Germany: KMK Bildungsstandards, Primarbereich")
    US = "us", _("United States: Common Core State Standards, K–5")


# German-speaking time zones; a school elsewhere in Europe is taken as French-speaking.
_GERMAN_ZONES = ("Europe/Berlin", "Europe/Busingen", "Europe/Vienna", "Europe/Zurich")


def programme_for(*, language: str = "", time_zone: str = "") -> str:
    """The programme of a school that speaks `language` (fr, de, en…), else of one in that time
    zone: what a new school starts with, and what the migration gave existing schools."""
    language = (language or "").split("-")[0].lower()
    if language in ("fr", "de"):
        return language
    if language == "en" or time_zone.startswith(("America/", "US/", "Pacific/Honolulu")):
        return Programme.US
    if time_zone in _GERMAN_ZONES:
        return Programme.DE
    return Programme.FR if time_zone.startswith("Europe/") else Programme.US


def default_programme() -> str:
    """A new school's programme: the one of the site's language (settings.LANGUAGE_CODE)."""
    from django.conf import settings

    return programme_for(language=settings.LANGUAGE_CODE)


class School(models.Model):
    """A school: the boundary between tenants. Nobody sees another school's rows."""

    name = NameField(_("name"), max_length=200)
    slug = models.SlugField(_("short name"), max_length=60, unique=True)
    time_zone = models.CharField(_("time zone"), max_length=64, default="Europe/Paris")
    # The expectations the reports name for each skill (reports/programmes/).
    programme = models.CharField(
        _("school programme"),
        max_length=2,
        choices=Programme.choices,
        default=default_programme,
        help_text=_("The official expectations the progress reports show for each skill."),
    )
    # Whole school years play data is kept after its own (classrooms/retention.py); empty: the
    # site's KAVET_RETENTION_YEARS. A school may keep less than the site, never more.
    retention_years = models.PositiveSmallIntegerField(
        _("years play data is kept"), null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("school")
        verbose_name_plural = _("schools")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class User(AbstractUser):
    """Every person who signs in. Staff and parents use a password; students never type one."""

    class Role(models.TextChoices):
        TEACHER = "teacher", _("Teacher")
        STUDENT = "student", _("Student")
        PARENT = "parent", _("Parent")
        SCHOOL_ADMIN = "school_admin", _("School admin")

    role = models.CharField(_("role"), max_length=20, choices=Role.choices, default=Role.TEACHER)
    school = models.ForeignKey(
        School,
        verbose_name=_("school"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="users",
    )
    language = models.CharField(_("language"), max_length=8, blank=True)
    # AbstractUser's, checked as every name is (classrooms.names): a student's first name is
    # their student name, and staff and parents' names are shown on the same pages.
    first_name = NameField(_("first name"), max_length=150, blank=True)
    last_name = NameField(_("last name"), max_length=150, blank=True)

    class Meta(AbstractUser.Meta):
        verbose_name = _("user")
        verbose_name_plural = _("users")

    @property
    def is_teacher(self) -> bool:
        return self.role == self.Role.TEACHER

    @property
    def is_student(self) -> bool:
        return self.role == self.Role.STUDENT

    @property
    def is_parent(self) -> bool:
        return self.role == self.Role.PARENT

    @property
    def is_school_admin(self) -> bool:
        return self.role == self.Role.SCHOOL_ADMIN


class Classroom(models.Model):
    """A class in one school year, taught by one or more teachers."""

    school = models.ForeignKey(School, on_delete=models.CASCADE, related_name="classrooms")
    name = NameField(_("name"), max_length=100)
    school_year = models.CharField(_("school year"), max_length=9, help_text="2026-2027")
    # The short code a tablet remembers for its class; unique across schools.
    code = models.CharField(_("class code"), max_length=8, unique=True)
    teachers = models.ManyToManyField(User, related_name="classrooms", blank=True)
    student_idle_minutes = models.PositiveSmallIntegerField(
        _("sign-out after idle minutes"), default=10
    )
    archived_at = models.DateTimeField(_("archived"), null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class ReadAloud(models.TextChoices):
        AUTO = "auto", _("when the class has children at operations tier 1")
        ON = "on", _("always")
        OFF = "off", _("never")

    # The game table reads rulings and prompts aloud (the tablet's speech, the page's language);
    # never needed to play.
    read_aloud = models.CharField(
        _("read aloud on the tablets"),
        max_length=4,
        choices=ReadAloud.choices,
        default=ReadAloud.AUTO,
    )

    class Meta:
        verbose_name = _("class")
        verbose_name_plural = _("classes")
        ordering = ["school_year", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["school", "school_year", "name"], name="classroom_unique_name_per_year"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.school_year})"


class NumberRange(models.IntegerChoices):
    UP_TO_10 = 10, _("up to 10")
    UP_TO_20 = 20, _("up to 20")


class Tier(models.IntegerChoices):
    ADD_SUBTRACT = 1, _("1 – add & subtract")
    FOUR_OPERATIONS = 2, _("2 – four operations")
    EXPERT = 3, _("3 – expert")


class Student(models.Model):
    """A child in a class. Signs in on a tablet with three pictures, never with a password."""

    user = models.OneToOneField(User, on_delete=models.CASCADE, related_name="student")
    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="students")
    name = NameField(_("first name or pseudonym"), max_length=40)
    number_range = models.PositiveSmallIntegerField(
        _("number range"), choices=NumberRange.choices, default=NumberRange.UP_TO_10
    )
    tier = models.PositiveSmallIntegerField(
        _("operations"), choices=Tier.choices, default=Tier.ADD_SUBTRACT
    )
    # WCAG 2.2.1: a child who needs it plays without a clock on their own turn (R4.9).
    untimed = models.BooleanField(
        _("untimed games"),
        default=False,
        help_text=_("No turn clock for this child: the table waits for them."),
    )
    # Three picture indexes, e.g. "2-7-11"; unique within the class (the tablet sign-in).
    picture_code = models.CharField(_("picture code"), max_length=16)
    # The parent's address the school gave in its roster (classrooms/roster.py): a contact the
    # school keeps, never a sign-in; a parent is linked to the child by a code (reports).
    parent_email = models.EmailField(_("parent's email"), blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("student")
        verbose_name_plural = _("students")
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["classroom", "name"], name="student_unique_name_in_class"
            ),
            models.UniqueConstraint(
                fields=["classroom", "picture_code"], name="student_unique_pictures_in_class"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def level(self) -> tuple[int, int]:
        return (self.number_range, self.tier)


class LevelChange(models.Model):
    """Every change of a student's level, with its date: the reports read this history."""

    student = models.ForeignKey(Student, on_delete=models.CASCADE, related_name="level_changes")
    number_range = models.PositiveSmallIntegerField(choices=NumberRange.choices)
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    changed_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["changed_at", "pk"]

    def __str__(self) -> str:
        return f"{self.student}: {self.number_range}/{self.tier} ({self.changed_at:%Y-%m-%d})"


class ParentLink(models.Model):
    """A parent may read this child's reports; a revoked link no longer opens anything."""

    parent = models.ForeignKey(User, on_delete=models.CASCADE, related_name="parent_links")
    student = models.ForeignKey(Student, on_delete=models.CASCADE, related_name="parent_links")
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["parent", "student"], name="parentlink_unique")
        ]

    def __str__(self) -> str:
        return f"{self.parent} → {self.student}"


class Invitation(models.Model):
    """What every invitation has (classrooms/invitations.py runs their one lifecycle): a secret
    shown once (a link's token, a slip's code) of which only a sha256 is kept, so a database leak
    hands out no account and no child; an expiry; and when it was used, and by whom, or
    withdrawn. Each kind adds what it invites to: a teacher to a school (TeacherInvite), a parent
    to a child (reports.ParentInvite)."""

    secret_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at"]

    def state(self, now=None) -> str:
        """ "used", "withdrawn", "expired" or "pending" (in that order: a used one stays used)."""
        if self.used_at is not None:
            return "used"
        if self.revoked_at is not None:
            return "withdrawn"
        if self.expires_at <= (now or timezone.now()):
            return "expired"
        return "pending"

    @property
    def is_pending(self) -> bool:
        return self.state() == "pending"


class TeacherInvite(Invitation):
    """A one-time link a school admin sends to a new teacher."""

    school = models.ForeignKey(School, on_delete=models.CASCADE, related_name="teacher_invites")
    email = models.EmailField(_("e-mail"), blank=True)
    first_name = NameField(_("first name"), max_length=150, blank=True)
    last_name = NameField(_("last name"), max_length=150, blank=True)

    class Meta(Invitation.Meta):
        verbose_name = _("teacher invitation")
        verbose_name_plural = _("teacher invitations")

    def __str__(self) -> str:
        return self.email or f"{self.first_name} {self.last_name}".strip() or f"#{self.pk}"


class Rollover(models.Model):
    """A school year rolled over (classrooms/rollover.py): what moved where, so it can be undone
    the same day. `moves` is a list of {"from": class id, "to": new class id or null (leavers)}."""

    school = models.ForeignKey(School, on_delete=models.CASCADE, related_name="rollovers")
    from_year = models.CharField(max_length=9)
    to_year = models.CharField(max_length=9)
    moves = models.JSONField(default=list)
    done_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    done_at = models.DateTimeField(auto_now_add=True)
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-done_at"]

    def __str__(self) -> str:
        return f"{self.school}: {self.from_year} → {self.to_year}"
