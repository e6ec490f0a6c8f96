"""The audit app's hooks: staff sign-ins and refused sign-ins, and the retention erase."""

from __future__ import annotations

from datetime import UTC, datetime, time

from classrooms.models import User
from classrooms.permissions import STAFF_ROLES, is_staff

from . import record
from .models import Action, AuditEvent


def signed_in(sender, request, user, **kwargs) -> None:
    """user_logged_in: a teacher or school admin signed in (parents and children are not staff).

    One with a second factor is signed in once the code is right: the code page records it
    (classrooms.twofactor.views.verify), not the password.
    """
    from classrooms.twofactor.services import has_second_factor

    if is_staff(user) and user.school_id and not has_second_factor(user):
        record(request, Action.SIGNED_IN, user, actor=user)


def signin_failed(sender, credentials: dict, request=None, second_factor: bool = False, **kwargs):
    """user_login_failed: a wrong password (or second-factor code) for a staff account.

    Only a real staff account gets a row, in its own school's log, with nobody as who: a made-up
    name belongs to no school, and a flood of them must not fill the log.
    """
    username = (credentials or {}).get("username")
    if not username or request is None:
        return
    account = User.objects.filter(
        username=str(username)[:150], role__in=STAFF_ROLES, school__isnull=False
    ).first()
    if account is None:
        return
    action = Action.CODE_FAILED if second_factor else Action.SIGNIN_FAILED
    # A wrong code comes from a session already past the password: who is that account.
    record(request, action, account, actor=account if second_factor else None)


def retention_due(sender, school, day, moment, dry_run: bool, **kwargs) -> dict[str, int]:
    """classrooms.signals.retention_due: the log is kept as long as the play data, no longer."""
    if school is None:
        rows = AuditEvent.objects.filter(school__isnull=True)
        moment = datetime.combine(day, time(), tzinfo=UTC)
    else:
        rows = AuditEvent.objects.filter(school=school)
    if dry_run:
        return {"audit.AuditEvent": rows.filter(at__lt=moment).count()}
    return {"audit.AuditEvent": rows.erase_before(moment)}
