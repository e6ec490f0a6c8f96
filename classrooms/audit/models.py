"""The activity log of a school's staff: one row per action, written once and never changed.

Append-only: a row is only ever inserted (AuditEvent.save refuses to save a row twice), and
neither a row nor a queryset of rows can be updated or deleted (delete, update, bulk_update
raise AppendOnly). The one exception is the retention erase: `AuditEvent.objects.erase_before`
deletes the rows past their keeping, as the play data's (classrooms.retention, through
receivers.retention_due). On PostgreSQL a trigger refuses UPDATE and DELETE in the database
too, whatever the code (migration 0002), but inside `maintenance()`, which erase_before uses. No relation points at another table but the school's (PROTECT): a
deleted account or an erased child leaves its row as it was, with the id and name it had.

A row never holds a child's data beyond a name and an id: `details` takes only short words and
numbers (AuditEvent.clean_details), and the callers put class names, counts and levels in it.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

from django.db import connections, models, transaction
from django.utils.translation import gettext_lazy as _

from classrooms.models import School

_ERASING: ContextVar[bool] = ContextVar("audit_erasing", default=False)
MAX_DETAIL_TEXT = 200
MAX_DETAIL_ITEMS = 20


@contextmanager
def maintenance(using: str = "default"):
    """Inside a transaction: PostgreSQL's trigger lets this transaction delete audit rows
    (migration 0002), until the block ends. Nothing to lift on another database."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('kavet.audit_maintenance', 'on', true)")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('kavet.audit_maintenance', 'off', true)")


class AppendOnly(Exception):
    """An audit row was about to be changed or deleted outside the retention erase."""


class Action(models.TextChoices):
    """What staff did, in the words the school's admin reads on the activity page."""

    SIGNED_IN = "signin", _("Signed in")
    SIGNIN_FAILED = "signin_failed", _("Sign-in refused: wrong password")
    CODE_FAILED = "code_failed", _("Sign-in refused: wrong second-factor code")
    RECOVERY_CODE_USED = "recovery_used", _("Signed in with a recovery code")
    SECOND_FACTOR_ON = "2fa_on", _("Set up a second factor")
    SECOND_FACTOR_OFF = "2fa_off", _("Turned off their second factor")
    SECOND_FACTOR_RESET = "2fa_reset", _("Reset the second factor of a colleague")
    RECOVERY_CODES_NEW = "recovery_new", _("Made new recovery codes")
    CLASS_CREATED = "class_created", _("Created a class")
    CLASS_CHANGED = "class_changed", _("Renamed a class or changed its settings")
    CLASS_TEACHERS = "class_teachers", _("Changed the teachers of a class")
    CLASS_ARCHIVED = "class_archived", _("Archived a class")
    CLASS_RESTORED = "class_restored", _("Brought an archived class back")
    CLASS_COPIED = "class_copied", _("Made next year's class")
    STUDENTS_ADDED = "students_added", _("Added students")
    STUDENT_RENAMED = "student_renamed", _("Renamed a student")
    STUDENT_MOVED = "student_moved", _("Moved a student to another class")
    STUDENT_ERASED = "student_erased", _("Removed a student and their data")
    RETENTION_ERASED = "retention_erased", _("Play data past its keeping was erased")
    LEVELS_CHANGED = "levels_changed", _("Changed levels")
    PICTURES_RESET = "pictures_reset", _("Gave a student new sign-in pictures")
    CHILD_SIGNIN_UNLOCKED = "child_unlocked", _("Let a student sign in again")
    EXPORT_CSV = "export_csv", _("Downloaded a class report (CSV)")
    EXPORT_PDF = "export_pdf", _("Downloaded a report (PDF)")
    EXPORT_DATA = "export_data", _("Downloaded everything stored about a student")
    PROGRAMME_CHANGED = "programme", _("Changed the school programme")
    RETENTION_CHANGED = "retention", _("Changed how long play data is kept")
    SCHOOL_CHANGED = "school_settings", _("Changed the school's settings")
    TEACHER_INVITED = "teacher_invited", _("Invited a teacher")
    TEACHER_INVITE_WITHDRAWN = "invite_withdrawn", _("Withdrew a teacher invitation")
    TEACHER_JOINED = "teacher_joined", _("Joined the school from an invitation")
    PARENT_CODE_MADE = "parent_code", _("Made a parent's code")
    PARENT_CODE_WITHDRAWN = "parent_code_withdrawn", _("Withdrew a parent's code")
    PARENT_LINK_REVOKED = "parent_link_revoked", _("Stopped a parent seeing a child's reports")
    ADMIN_EDIT = "admin_edit", _("Changed a record in the administration pages")
    STAFF_DEACTIVATED = "staff_off", _("Stopped a member of staff signing in")
    STAFF_REACTIVATED = "staff_on", _("Let a member of staff sign in again")
    STAFF_PASSWORD_LINK = "staff_password", _("Made a new-password link for a member of staff")
    STAFF_SIGNIN_UNLOCKED = "staff_unlocked", _("Lifted the sign-in pauses of a member of staff")
    ROSTER_IMPORTED = "roster_imported", _("Imported a class list")
    ROSTER_EXPORTED = "roster_exported", _("Downloaded the school's class lists")
    YEAR_ROLLED_OVER = "year_rolled_over", _("Moved the classes up to a new school year")
    YEAR_ROLLOVER_UNDONE = "year_rollover_undone", _("Undid the move to a new school year")


class AuditEventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnly("audit rows are never changed")

    def bulk_update(self, objs, fields, batch_size=None):
        raise AppendOnly("audit rows are never changed")

    def delete(self):
        if not _ERASING.get():
            raise AppendOnly("audit rows are erased only by the retention rule")
        return super().delete()

    delete.queryset_only = True

    def erase_before(self, moment) -> int:
        """Delete the rows of this queryset dated before `moment` (the retention erase only)."""
        token = _ERASING.set(True)
        try:
            with transaction.atomic(using=self.db), maintenance(self.db):
                deleted, _by_model = self.filter(at__lt=moment).delete()
        finally:
            _ERASING.reset(token)
        return deleted


class AuditEvent(models.Model):
    """One action of a member of staff (or a refused sign-in to a staff account)."""

    school = models.ForeignKey(
        School, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    at = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)
    # Who: an id and the name they had then (no foreign key: a deleted account keeps its rows).
    actor_id = models.BigIntegerField(_("who (id)"), null=True, blank=True, db_index=True)
    actor_name = models.CharField(_("who"), max_length=300, blank=True)
    address = models.CharField(_("from address"), max_length=64, blank=True)
    action = models.CharField(_("what"), max_length=32, choices=Action.choices, db_index=True)
    # On whom or what: a kind ("student", "classroom"...), an id and a name, nothing more.
    target_type = models.CharField(_("on what"), max_length=32, blank=True)
    target_id = models.BigIntegerField(null=True, blank=True)
    target_name = models.CharField(_("on whom"), max_length=300, blank=True)
    details = models.JSONField(default=dict, blank=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        verbose_name = _("activity log entry")
        verbose_name_plural = _("activity log")
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["school", "-at"], name="audit_school_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name} {self.action} {self.target_name}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnly("audit rows are never changed")
        self.details = clean_details(self.details)
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnly("audit rows are erased only by the retention rule")


def _clean_value(value):
    if isinstance(value, bool | int) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_clean_value(v) for v in list(value)[:MAX_DETAIL_ITEMS]]
    return str(value)[:MAX_DETAIL_TEXT]


def clean_details(details: dict | None) -> dict:
    """Short words, numbers and short lists of them: what a row may say beyond its columns."""
    return {str(k)[:40]: _clean_value(v) for k, v in (details or {}).items()}
