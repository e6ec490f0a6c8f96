"""Django's admin is the site team's (superusers only); behind that gate it is scoped per school."""

from __future__ import annotations

import pytest

from tests import factories

pytestmark = pytest.mark.django_db


@pytest.mark.usefixtures("admin_second_wall")
def test_a_school_admin_sees_only_their_schools_students(client, school, other_school):
    mine = factories.classroom(school=school, name="Ours")
    theirs = factories.classroom(school=other_school, name="Theirs")
    factories.student(classroom=mine, name="Maiwenn")
    stranger = factories.student(classroom=theirs, name="Zoltan")
    client.force_login(factories.school_admin(school=school))
    page = client.get("/admin/classrooms/student/").content.decode()
    assert "Maiwenn" in page and "Zoltan" not in page
    # Guessing the other school's student's id finds nothing either.
    response = client.get(f"/admin/classrooms/student/{stranger.pk}/change/", follow=True)
    assert "Zoltan" not in response.content.decode()
    assert client.get("/admin/classrooms/classroom/").content.decode().count("Theirs") == 0


@pytest.mark.usefixtures("admin_second_wall")
def test_a_school_admin_cannot_hand_out_superuser_rights(client, school):
    admin = factories.school_admin(school=school)
    teacher = factories.teacher(school=school)
    client.force_login(admin)
    page = client.get(f"/admin/classrooms/user/{teacher.pk}/change/").content.decode()
    assert 'name="is_superuser"' not in page and 'name="role"' in page


def test_teachers_parents_and_students_do_not_get_into_the_admin(client, school):
    kid = factories.student(classroom=factories.classroom(school=school)).user
    for user in (factories.teacher(school=school), factories.parent(school=school), kid):
        client.force_login(user)
        response = client.get("/admin/")
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
