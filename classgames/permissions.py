"""Who may read or change the class games (the rules of classrooms.permissions, for this app):
a class game follows its class (staff who teach it, a school admin for the whole school)."""

from __future__ import annotations

from django.db import connections, router
from django.http import Http404

from classrooms.models import Classroom, User
from classrooms.permissions import STAFF_ROLES, in_classroom, rules
from kavet_site.prepared import Columns, Statement

from .models import ClassSession


def session_get(user, pk: int) -> ClassSession:
    """The class game with its class, or 404 when it does not exist or the user may not manage
    it (no difference): manageable(user, ClassSession), the rule below (in_classroom: a class
    the user teaches, every class of their school for a school admin).

    As one prepared statement (`_SessionRead`): the teacher's live view, its one-table fetches
    and the class board ask it at every poll, and Django compiling the rule's query each time
    was 4.5 % of the web workers' CPU at 30 moves/s, 10,000 tablets (issue 38).
    tests/classgames/test_session_get.py checks it against the ORM's rule for every kind of
    user."""
    if (
        not getattr(user, "is_authenticated", False)
        or not getattr(user, "is_active", False)
        or getattr(user, "role", None) not in STAFF_ROLES
        or not user.school_id
    ):
        raise Http404("no such class game")  # staff_classrooms(user) is none
    try:
        pk = int(pk)
    except (TypeError, ValueError):
        raise Http404("no such class game") from None
    session = _SessionRead.of(router.db_for_read(ClassSession)).get(
        pk,
        school_id=user.school_id,
        user_id=user.pk,
        whole_school=user.role == User.Role.SCHOOL_ADMIN,
    )
    if session is None:
        raise Http404("no such class game")
    return session


class _SessionRead(Statement):
    """The class game and its class, where the user may manage it: one SELECT written once per
    database alias (classrooms.permissions.staff_classrooms: the class in the user's school,
    and a teacher of it unless a school admin)."""

    def __init__(self, alias: str) -> None:
        self.alias = alias
        q = connections[alias].ops.quote_name
        self.session = Columns(alias, ClassSession, "s")
        self.classroom = Columns(alias, Classroom, "c")
        teachers = Classroom._meta.get_field("teachers")
        link = teachers.remote_field.through._meta
        self.sql = (
            f"SELECT {', '.join(self.session.columns + self.classroom.columns)}"
            f" FROM {q(ClassSession._meta.db_table)} s INNER JOIN {q(Classroom._meta.db_table)} c"
            f" ON c.{q(Classroom._meta.pk.column)} = s.{q(ClassSession._meta.get_field('classroom').column)}"
            f" WHERE s.{q(ClassSession._meta.pk.column)} = %s"
            f" AND c.{q(Classroom._meta.get_field('school').column)} = %s"
            f" AND (%s OR EXISTS (SELECT 1 FROM {q(link.db_table)} t"
            f" WHERE t.{q(teachers.m2m_column_name())} = c.{q(Classroom._meta.pk.column)}"
            f" AND t.{q(teachers.m2m_reverse_name())} = %s))"
        )

    def get(self, pk: int, *, school_id: int, user_id: int, whole_school: bool):
        rows = self.fetch([pk, school_id, whole_school, user_id])  # by its key: one or none
        if not rows:
            return None
        row = rows[0]
        session = self.session.instance(row)
        classroom = self.classroom.instance(row, len(self.session.columns))
        ClassSession._meta.get_field("classroom").set_cached_value(session, classroom)
        return session


rules(ClassSession, read=in_classroom)
