"""Rows for the teachers' tests: two teachers of one school, another school, class games."""

from __future__ import annotations

import pytest

from classgames.models import ClassSession, ClassTable
from games.models import Game, Seat
from tests import factories


@pytest.fixture
def other_teacher(school):
    return factories.teacher(school=school, username="colleague")


@pytest.fixture
def other_classroom(school, other_teacher):
    """A colleague's class in the same school: the teacher must not see it."""
    room = factories.classroom(school=school, teachers=[other_teacher], name="Colleague class")
    for name in ("Gwen", "Hugo", "Iwan"):
        factories.student(classroom=room, name=name)
    return room


@pytest.fixture
def foreign_classroom(other_school):
    teacher = factories.teacher(school=other_school, username="faraway")
    room = factories.classroom(school=other_school, teachers=[teacher], name="Far away")
    factories.student(classroom=room, name="Jade")
    return room


@pytest.fixture
def school_admin(school):
    return factories.school_admin(school=school, username="head")


def finished_game_rows(classroom) -> tuple[ClassSession, Game]:
    """A class game with one ended table, written as rows: enough for pages that only list."""
    session = ClassSession.objects.create(classroom=classroom, status=ClassSession.Status.RUNNING)
    game = Game.objects.create(
        school=classroom.school,
        classroom=classroom,
        config={},
        seed=1,
        status=Game.Status.RUNNING,
        label="Table 1",
    )
    ClassTable.objects.create(game=game, session=session)
    for position, student in enumerate(classroom.students.order_by("name")[:2]):
        Seat.objects.create(game=game, position=position, student=student, name=student.name)
    return session, game


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    """Hashing real passwords costs ~0.3 s a user; these tests create many users."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
