"""The demo school command creates everything once; a second run changes nothing."""
from __future__ import annotations

import pytest
from django.core.management import call_command

from classrooms.models import Classroom, LevelChange, ParentLink, School, Student, User


def counts() -> dict:
    return {m.__name__: m.objects.count()
            for m in (School, User, Classroom, Student, LevelChange, ParentLink)}


@pytest.mark.django_db
def test_demo_school_is_idempotent():
    call_command("demo_school", stdout=open("/dev/null", "w"))
    first = counts()
    assert first["School"] == 1 and first["Classroom"] == 2
    assert first["Student"] >= 10 and first["ParentLink"] == 1
    assert set(Student.objects.values_list("number_range", flat=True)) == {10, 20}
    assert set(Student.objects.values_list("tier", flat=True)) == {1, 2, 3}
    call_command("demo_school", stdout=open("/dev/null", "w"))
    assert counts() == first


@pytest.mark.django_db
def test_demo_logins_work(client):
    call_command("demo_school", stdout=open("/dev/null", "w"))
    assert client.login(username="teacher", password="kavet-demo")
    teacher = User.objects.get(username="teacher")
    assert teacher.role == User.Role.TEACHER and teacher.classrooms.count() == 2
    student_user = Student.objects.first().user
    assert not student_user.has_usable_password()
