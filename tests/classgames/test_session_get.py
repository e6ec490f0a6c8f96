"""classgames.permissions.session_get: its one prepared statement says what the rule says.

The teacher's live view, its one-table fetches and the class board ask it at every poll, so it
is a hand-written SELECT rather than an ORM query compiled each time (issue 38); here it is
checked against the ORM's rule (manageable(user, ClassSession): a class the user teaches, any
class of their school for a school admin) for every kind of user, and what it returns against
what select_related would have read.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import Http404

from classgames.models import ClassSession
from classgames.permissions import session_get
from classrooms.permissions import manageable
from tests import factories

pytestmark = pytest.mark.django_db


def orm_session(user, pk):
    """The rule as the ORM says it (the query this replaced)."""
    return manageable(user, ClassSession.objects.select_related("classroom")).filter(pk=pk).first()


@pytest.fixture
def sessions():
    school = factories.school()
    other = factories.school(slug="other", name="Other school")
    teacher = factories.teacher(school=school)
    colleague = factories.teacher(school=school)  # teaches another class of the school
    ours = factories.classroom(school=school, teachers=[teacher])
    next_door = factories.classroom(school=school, teachers=[colleague])
    nobodys = factories.classroom(school=school)  # no teacher: the school admin's alone
    elsewhere = factories.classroom(school=other, teachers=[factories.teacher(school=other)])
    made = {}
    for name, room in (
        ("ours", ours),
        ("next door", next_door),
        ("nobody's", nobodys),
        ("elsewhere", elsewhere),
    ):
        made[name] = ClassSession.objects.create(
            classroom=room, created_by=teacher, status=ClassSession.Status.RUNNING
        )
    kid = factories.student(classroom=ours, name="Anna")
    parent = factories.parent(school=school)
    users = {
        "teacher": teacher,
        "colleague": colleague,
        "admin": factories.school_admin(school=school),
        "other school's admin": factories.school_admin(school=other),
        "other school's teacher": factories.teacher(school=other),
        "teacher without a school": factories.teacher(school=None),
        "teacher no longer active": factories.teacher(school=school, is_active=False),
        "parent": parent,
        "student": kid.user,
        "anonymous": AnonymousUser(),
    }
    # A teacher of our class who is also put on the other school's class by mistake: the
    # school still bounds what they see.
    users["teacher"].classrooms.add(elsewhere)
    users["teacher no longer active"].classrooms.add(ours)
    return made, users


def test_the_statement_lets_in_exactly_whom_the_rule_lets_in(sessions):
    made, users = sessions
    seen = set()
    for session in made.values():
        for name, user in users.items():
            expected = orm_session(user, session.pk)
            if expected is None:
                with pytest.raises(Http404):
                    session_get(user, session.pk)
                continue
            got = session_get(user, session.pk)
            seen.add(name)
            assert got.pk == expected.pk and got.status == expected.status, name
            assert got.classroom == expected.classroom
    assert seen == {"teacher", "colleague", "admin", "other school's admin"}  # both answers held
    # A class game that does not exist, and an id that is no number: a 404 like the others.
    for pk in (max(s.pk for s in made.values()) + 1000, "12abc", None):
        with pytest.raises(Http404):
            session_get(users["admin"], pk)


def test_what_it_reads_is_what_select_related_read(sessions, django_assert_num_queries):
    made, users = sessions
    session = made["ours"]
    session.settings = {"turn_time": 60, "challenge_window": 5}
    session.save()
    expected = orm_session(users["teacher"], session.pk)
    with django_assert_num_queries(1):
        got = session_get(users["teacher"], session.pk)
        assert got.classroom.name == expected.classroom.name  # read with it: no query
    for field in ClassSession._meta.concrete_fields:
        assert getattr(got, field.attname) == getattr(expected, field.attname), field.name
    for field in type(expected.classroom)._meta.concrete_fields:
        assert getattr(got.classroom, field.attname) == getattr(
            expected.classroom, field.attname
        ), field.name
    assert got.settings == {"turn_time": 60, "challenge_window": 5}  # JSON decoded
    assert got._state.adding is False and got._state.db == "default"
