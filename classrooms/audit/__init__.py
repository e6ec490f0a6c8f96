"""The activity log of a school's staff: `record(request, action, target, **details)`.

The one function every page, service caller and sign-in hook calls after an action succeeded
(a refused request records nothing, bar a refused sign-in). Who is the request's user, the
address is the client's as every rate limit reads it (kavet_site.clientip), the school is the
target's (else the user's). The rows are in classrooms.audit.models (append-only), the school
admin's page in classrooms.audit.views.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Target:
    """On whom or what an action was done: a kind, an id and a name (nothing more of a child)."""

    type: str
    id: int | None
    name: str
    school_id: int | None = None


def about(obj: Any) -> Target:
    """The Target of a row, read now (before an erase takes its id and name away)."""
    if isinstance(obj, Target):
        return obj
    from classrooms.models import Classroom, School, Student, User

    if isinstance(obj, Student):
        return Target("student", obj.pk, obj.name, obj.classroom.school_id)
    if isinstance(obj, Classroom):
        return Target("classroom", obj.pk, f"{obj.name} ({obj.school_year})", obj.school_id)
    if isinstance(obj, User):
        return Target("user", obj.pk, person_name(obj), obj.school_id)
    if isinstance(obj, School):
        return Target("school", obj.pk, obj.name, obj.pk)
    school_id = getattr(obj, "school_id", None)
    return Target(obj._meta.model_name, obj.pk, str(obj)[:300], school_id)


def person_name(user: Any) -> str:
    """A person as the log names them: their full name, and their user name to tell them apart."""
    full = user.get_full_name().strip() if hasattr(user, "get_full_name") else ""
    username = getattr(user, "username", "") or ""
    return f"{full} ({username})" if full and username else full or username


# record()'s default who: the request's signed-in user (actor=None says nobody).
FROM_REQUEST: Any = object()


def record(request: Any, action: str, target: Any = None, *, actor: Any = FROM_REQUEST, **details):
    """Append one row: `actor` (else the request's user) did `action` on `target`.

    `request` may be None (a job): the row then has no address. Returns the row.
    """
    from kavet_site.clientip import client_address

    from .models import AuditEvent

    if actor is FROM_REQUEST:
        user = getattr(request, "user", None)
        actor = user if getattr(user, "is_authenticated", False) else None
    subject = about(target) if target is not None else None
    school_id = subject.school_id if subject is not None else None
    if school_id is None and actor is not None:
        school_id = actor.school_id
    return AuditEvent.objects.create(
        school_id=school_id,
        actor_id=actor.pk if actor is not None else None,
        actor_name=person_name(actor) if actor is not None else "",
        address=client_address(request)[:64] if request is not None else "",
        action=action,
        target_type=subject.type if subject else "",
        target_id=subject.id if subject else None,
        target_name=subject.name[:300] if subject else "",
        details=details,
    )
