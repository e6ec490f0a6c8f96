"""Classes (create, rename, archive, next year) and teacher invitations."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from classrooms import invitations, services
from classrooms.models import Classroom, LevelChange, Student, TeacherInvite, User
from tests import factories

pytestmark = pytest.mark.django_db


def test_a_teacher_creates_a_class_and_teaches_it(client, teacher):
    client.force_login(teacher)
    response = client.post(
        reverse("classrooms:classroom_create"),
        {"name": "  CE2  B ", "school_year": "2026-2027", "student_idle_minutes": "15"},
    )
    room = Classroom.objects.get(name="CE2 B")
    assert response.status_code == 302 and response["Location"].endswith(f"/classes/{room.pk}/")
    assert list(room.teachers.all()) == [teacher] and room.school == teacher.school
    assert len(room.code) == 6 and room.student_idle_minutes == 15


@pytest.mark.parametrize("year", ["2026", "2026-2028", "26-27", "abcd-efgh"])
def test_a_bad_school_year_is_refused(client, teacher, year):
    client.force_login(teacher)
    response = client.post(
        reverse("classrooms:classroom_create"),
        {"name": "CE2", "school_year": year, "student_idle_minutes": "10"},
    )
    assert response.status_code == 200 and "2026-2027" in response.content.decode()
    assert not Classroom.objects.filter(name="CE2").exists()


def test_a_class_name_is_unique_per_school_and_year(teacher, classroom):
    with pytest.raises(ValidationError, match="already has a class"):
        services.classroom_create(
            school=classroom.school,
            name=classroom.name.upper(),
            school_year=classroom.school_year,
            by=teacher,
        )
    other_year = services.classroom_create(
        school=classroom.school, name=classroom.name, school_year="2027-2028", by=teacher
    )
    assert other_year.code != classroom.code


def test_rename_and_archive(client, teacher, classroom):
    client.force_login(teacher)
    response = client.post(
        reverse("classrooms:classroom_edit", args=[classroom.pk]),
        {"name": "CM2", "student_idle_minutes": "20"},
    )
    assert response.status_code == 302
    classroom.refresh_from_db()
    assert (classroom.name, classroom.student_idle_minutes) == ("CM2", 20)
    client.post(reverse("classrooms:classroom_archive", args=[classroom.pk]))
    classroom.refresh_from_db()
    assert classroom.archived_at is not None
    home = client.get(reverse("classrooms:teacher_home")).content.decode()
    assert "1 archived class" in home
    client.post(reverse("classrooms:classroom_archive", args=[classroom.pk]), {"action": "restore"})
    classroom.refresh_from_db()
    assert classroom.archived_at is None


def test_only_a_school_admin_chooses_a_classs_teachers(client, school, classroom, teacher):
    admin = factories.school_admin(school=school)
    colleague = factories.teacher(school=school)
    stranger = factories.teacher(school=factories.school(slug="far", name="Far"))
    client.force_login(admin)
    url = reverse("classrooms:classroom_edit", args=[classroom.pk])
    page = client.get(url).content.decode()
    assert colleague.username in page and stranger.username not in page
    client.post(
        url,
        {
            "name": classroom.name,
            "student_idle_minutes": 10,
            "teachers": [teacher.pk, colleague.pk],
        },
    )
    assert set(classroom.teachers.all()) == {teacher, colleague}
    client.post(
        url, {"name": classroom.name, "student_idle_minutes": 10, "teachers": [stranger.pk]}
    )
    assert set(classroom.teachers.all()) == {teacher, colleague}  # a foreign teacher: refused
    client.force_login(teacher)
    assert "teachers" not in client.get(url).context["form"].fields


def test_copy_into_next_year_moves_the_chosen_students_with_their_history(
    client, teacher, classroom, students
):
    anna, brieuc, cecile = students
    client.force_login(teacher)
    url = reverse("classrooms:classroom_copy", args=[classroom.pk])
    assert "2027-2028" in client.get(url).content.decode()
    response = client.post(
        url,
        {
            "name": "CE1",
            "school_year": "2027-2028",
            "students": [anna.pk, brieuc.pk],
            "archive_old": "on",
        },
    )
    new = Classroom.objects.get(name="CE1", school_year="2027-2028")
    assert response.status_code == 302
    assert set(new.students.all()) == {anna, brieuc}
    assert list(cecile.__class__.objects.filter(classroom=classroom)) == [cecile]
    assert list(new.teachers.all()) == [teacher] and new.code != classroom.code
    assert LevelChange.objects.filter(student=anna).count() == 1
    classroom.refresh_from_db()
    assert classroom.archived_at is not None


def test_copy_refuses_a_name_taken_next_year(teacher, classroom, students):
    services.classroom_create(
        school=classroom.school, name="Taken", school_year="2027-2028", by=teacher
    )
    with pytest.raises(ValidationError):
        services.classroom_copy_to_next_year(classroom=classroom, name="Taken", by=teacher)
    assert Student.objects.filter(classroom=classroom).count() == 3
    classroom.refresh_from_db()
    assert classroom.archived_at is None


# --- invitations -------------------------------------------------------------------------------


def test_a_school_admin_invites_a_teacher_with_a_one_time_link(client, school):
    admin = factories.school_admin(school=school)
    client.force_login(admin)
    response = client.post(
        reverse("classrooms:invites"), {"first_name": "Nolwenn", "email": "nolwenn@school.invalid"}
    )
    link = response.context["link"]
    assert "/invitation/" in link
    token = link.rstrip("/").rsplit("/", 1)[1]
    assert not TeacherInvite.objects.filter(secret_hash__contains=token).exists()  # hashed
    client.logout()
    page = client.get(link)
    assert page.status_code == 200 and "Nolwenn" in page.content.decode()
    bad = client.post(link, {"username": "nolwenn", "password1": "short", "password2": "short"})
    assert bad.status_code == 200 and not User.objects.filter(username="nolwenn").exists()
    good = client.post(
        link,
        {
            "username": "nolwenn",
            "first_name": "Nolwenn",
            "password1": "a-long enough pass 42",
            "password2": "a-long enough pass 42",
        },
    )
    assert good.status_code == 302 and good["Location"] == reverse("classrooms:teacher_home")
    user = User.objects.get(username="nolwenn")
    assert user.role == User.Role.TEACHER and user.school == school
    assert user.check_password("a-long enough pass 42")
    client.logout()
    # The link works once.
    again = client.post(
        link,
        {
            "username": "other",
            "password1": "a-long enough pass 42",
            "password2": "a-long enough pass 42",
        },
    )
    assert again.status_code == 404 and not User.objects.filter(username="other").exists()


def test_a_teacher_cannot_invite_and_a_withdrawn_link_is_dead(client, school, teacher):
    client.force_login(teacher)
    assert client.get(reverse("classrooms:invites")).status_code == 403
    with pytest.raises(ValidationError):
        invitations.create(services.TEACHER_LINK, target=school, by=teacher)
    admin = factories.school_admin(school=school)
    invite, token = invitations.create(services.TEACHER_LINK, target=school, by=admin)
    client.force_login(admin)
    client.post(reverse("classrooms:invite_revoke", args=[invite.pk]))
    with pytest.raises(invitations.InvitationRefused) as refused:
        invitations.open_secret(services.TEACHER_LINK, token)
    assert refused.value.reason == invitations.WITHDRAWN


def test_another_schools_admin_cannot_withdraw_an_invitation(client, school, other_school):
    admin = factories.school_admin(school=school)
    invite, token = invitations.create(services.TEACHER_LINK, target=school, by=admin)
    client.force_login(factories.school_admin(school=other_school))
    assert client.post(reverse("classrooms:invite_revoke", args=[invite.pk])).status_code == 404
    assert invitations.open_secret(services.TEACHER_LINK, token) == invite


def test_the_read_aloud_setting_is_saved_on_create_and_edit(client, teacher):
    client.force_login(teacher)
    client.post(
        reverse("classrooms:classroom_create"),
        {
            "name": "CE1",
            "school_year": "2026-2027",
            "student_idle_minutes": "10",
            "read_aloud": "off",
        },
    )
    room = Classroom.objects.get(name="CE1")
    assert room.read_aloud == Classroom.ReadAloud.OFF
    url = reverse("classrooms:classroom_edit", args=[room.pk])
    assert client.get(url).context["form"].initial["read_aloud"] == "off"  # the edit form shows it
    client.post(url, {"name": "CE1", "student_idle_minutes": "10", "read_aloud": "on"})
    room.refresh_from_db()
    assert room.read_aloud == Classroom.ReadAloud.ON
