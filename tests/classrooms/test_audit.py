"""The staff's activity log (issue 39): one row per action, append-only, read by the school's
admin only, kept as long as the play data."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from django.db import DatabaseError, connection, transaction
from django.urls import reverse
from django.utils import timezone

from classrooms import invitations
from classrooms.audit import record
from classrooms.audit.models import Action, AppendOnly, AuditEvent, maintenance
from classrooms.audit.views import describe
from classrooms.models import Classroom, School, Student
from classrooms.retention import retention_erase
from tests import factories
from tests.conftest import need_service

PASSWORD = "correct horse battery"


def rows(action: str, **lookup) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=action, **lookup))


def one(action: str, **lookup) -> AuditEvent:
    found = rows(action, **lookup)
    assert len(found) == 1, (action, found)
    return found[0]


@pytest.fixture
def admin_client(client, school_admin):
    client.force_login(school_admin)
    return client


@pytest.fixture
def teacher_client(client, teacher):
    client.force_login(teacher)
    return client


# --- sign-in --------------------------------------------------------------------------------


def test_a_staff_sign_in_and_a_wrong_password_are_logged_a_made_up_name_is_not(client, teacher):
    client.post(reverse("login"), {"username": teacher.username, "password": "wrong one"})
    failed = one(Action.SIGNIN_FAILED)
    assert (failed.school_id, failed.target_type, failed.target_id) == (
        teacher.school_id,
        "user",
        teacher.pk,
    )
    assert failed.actor_id is None and failed.address == "127.0.0.1"
    client.post(reverse("login"), {"username": "nobody-at-all", "password": "x"})
    assert len(rows(Action.SIGNIN_FAILED)) == 1
    client.post(reverse("login"), {"username": teacher.username, "password": PASSWORD})
    signed = one(Action.SIGNED_IN)
    assert signed.actor_id == teacher.pk and teacher.username in signed.actor_name


def test_a_parent_signing_in_is_not_staff_and_not_logged(client, school):
    parent = factories.parent(school=school)
    client.post(reverse("login"), {"username": parent.username, "password": PASSWORD})
    assert not AuditEvent.objects.exists()


# --- classes ----------------------------------------------------------------------------------


def test_classes_created_renamed_reassigned_archived_and_copied(
    admin_client, school, school_admin, teacher, other_teacher
):
    admin_client.post(
        reverse("classrooms:classroom_create"),
        {
            "name": "CM1",
            "school_year": "2026-2027",
            "student_idle_minutes": 10,
            "teachers": [teacher.pk],
        },
    )
    room = Classroom.objects.get(name="CM1")
    created = one(Action.CLASS_CREATED)
    assert (created.actor_id, created.target_id, created.school_id) == (
        school_admin.pk,
        room.pk,
        school.pk,
    )
    edit = reverse("classrooms:classroom_edit", args=[room.pk])
    admin_client.post(
        edit,
        {
            "name": "CM1 B",
            "student_idle_minutes": 10,
            "read_aloud": "auto",
            "teachers": [teacher.pk],
        },
    )
    renamed = one(Action.CLASS_CHANGED)
    assert renamed.details["old_name"] == "CM1" and renamed.details["changed"] == ["name"]
    assert not rows(Action.CLASS_TEACHERS)
    admin_client.post(
        edit,
        {
            "name": "CM1 B",
            "student_idle_minutes": 10,
            "read_aloud": "auto",
            "teachers": [other_teacher.pk],
        },
    )
    assert "colleague" in one(Action.CLASS_TEACHERS).details["new"]
    admin_client.post(reverse("classrooms:classroom_archive", args=[room.pk]))
    admin_client.post(
        reverse("classrooms:classroom_archive", args=[room.pk]), {"action": "restore"}
    )
    assert one(Action.CLASS_ARCHIVED).target_id == one(Action.CLASS_RESTORED).target_id == room.pk
    admin_client.post(
        reverse("classrooms:classroom_copy", args=[room.pk]),
        {"name": "CM2", "school_year": "2027-2028", "archive_old": "on"},
    )
    copied = one(Action.CLASS_COPIED)
    assert copied.target_id == Classroom.objects.get(name="CM2").pk
    assert "CM1 B" in copied.details["from_class"]


# --- students -------------------------------------------------------------------------------


def test_students_added_renamed_moved_levels_pictures_and_removed(
    teacher_client, teacher, classroom, students
):
    teacher_client.post(
        reverse("classrooms:students_add", args=[classroom.pk]),
        {"names": "Dora\nErwan", "number_range": 10, "tier": 1},
    )
    added = one(Action.STUDENTS_ADDED)
    assert added.details["count"] == 2 and added.details["students"] == ["Dora", "Erwan"]
    anna = students[0]
    edit = reverse("classrooms:student_edit", args=[classroom.pk, anna.pk])
    teacher_client.post(edit, {"name": "Annaig", "number_range": 10, "tier": 1})
    assert one(Action.STUDENT_RENAMED, target_id=anna.pk).details["old_name"] == "Anna"
    assert not rows(Action.LEVELS_CHANGED)
    teacher_client.post(edit, {"name": "Annaig", "number_range": 20, "tier": 1})
    level = one(Action.LEVELS_CHANGED, target_id=anna.pk)
    assert level.details["old"] != level.details["new"]
    teacher_client.post(
        reverse("classrooms:levels", args=[classroom.pk]),
        {"action": "bulk", "students": [s.pk for s in students], "bulk_tier": 2},
    )
    assert one(Action.LEVELS_CHANGED, target_type="classroom").details["count"] == 2
    old_code = Student.objects.get(pk=anna.pk).picture_code
    teacher_client.post(reverse("classrooms:student_code_reset", args=[classroom.pk, anna.pk]))
    reset = one(Action.PICTURES_RESET, target_id=anna.pk)
    # Never a child's data beyond a name and an id: no picture code, old or new.
    new_code = Student.objects.get(pk=anna.pk).picture_code
    text = json.dumps([reset.details, reset.target_name])
    assert old_code not in text and new_code not in text
    teacher_client.post(reverse("classrooms:student_signin_unlock", args=[classroom.pk, anna.pk]))
    assert one(Action.CHILD_SIGNIN_UNLOCKED).target_id == anna.pk
    other = factories.classroom(school=classroom.school, teachers=[teacher], name="Other")
    teacher_client.post(
        reverse("classrooms:student_move", args=[classroom.pk, anna.pk]), {"to_classroom": other.pk}
    )
    moved = one(Action.STUDENT_MOVED)
    assert moved.target_name == "Annaig" and "Other" in moved.details["to_class"]
    brieuc = students[1]
    teacher_client.post(
        reverse("classrooms:student_remove", args=[classroom.pk, brieuc.pk]), {"confirm": "yes"}
    )
    erased = one(Action.STUDENT_ERASED)
    assert (erased.target_id, erased.target_name) == (brieuc.pk, "Brieuc")
    assert not Student.objects.filter(pk=brieuc.pk).exists()


def test_a_refused_request_records_nothing(teacher_client, classroom, students, foreign_classroom):
    teacher_client.post(
        reverse("classrooms:student_remove", args=[classroom.pk, students[0].pk]), {}
    )  # the box not ticked
    teacher_client.post(
        reverse("classrooms:students_add", args=[classroom.pk]),
        {"names": "Anna", "number_range": 10, "tier": 1},
    )  # already in the class
    foreign = foreign_classroom.students.first()
    response = teacher_client.post(
        reverse("classrooms:student_code_reset", args=[foreign_classroom.pk, foreign.pk])
    )
    assert response.status_code == 404
    assert list(AuditEvent.objects.exclude(action=Action.SIGNED_IN)) == []


# --- exports, erasure, invitations, parents ----------------------------------------------------


def test_exports_and_the_admins_erasure(admin_client, school_admin, classroom, students):
    response = admin_client.get(reverse("reports:class_csv", args=[classroom.pk]))
    assert response.status_code == 200
    assert one(Action.EXPORT_CSV).target_id == classroom.pk
    anna = students[0]
    assert admin_client.get(reverse("reports:student_export", args=[anna.pk])).status_code == 200
    assert one(Action.EXPORT_DATA).target_id == anna.pk
    admin_client.post(reverse("reports:student_erase", args=[anna.pk]), {"confirm_name": "Anna"})
    erased = one(Action.STUDENT_ERASED)
    assert (erased.actor_id, erased.target_name) == (school_admin.pk, "Anna")


def test_invitations_and_parents_codes(admin_client, client, school_admin, students):
    admin_client.post(
        reverse("classrooms:invites"), {"first_name": "Tanguy", "email": "t@example.org"}
    )
    invited = one(Action.TEACHER_INVITED)
    assert invited.target_type == "teacherinvite" and "t@example.org" in invited.target_name
    admin_client.post(reverse("classrooms:invite_revoke", args=[invited.target_id]))
    assert one(Action.TEACHER_INVITE_WITHDRAWN).target_id == invited.target_id
    anna = students[0]
    admin_client.post(reverse("reports:invite_create", args=[anna.pk]))
    assert one(Action.PARENT_CODE_MADE).target_id == anna.pk


def test_a_teacher_joining_from_an_invitation(client, school, school_admin):
    from classrooms.services import TEACHER_LINK

    _invite, token = invitations.create(
        TEACHER_LINK, target=school, by=school_admin, first_name="Nolwenn"
    )
    client.post(
        reverse("classrooms:invite_accept", args=[token]),
        {
            "username": "nolwenn",
            "password1": "a long pass phrase 42",
            "password2": "a long pass phrase 42",
            "first_name": "Nolwenn",
            "last_name": "Le Gall",
        },
    )
    joined = one(Action.TEACHER_JOINED)
    assert joined.school_id == school.pk and "nolwenn" in joined.actor_name


# --- school settings --------------------------------------------------------------------------


@pytest.fixture
def superuser_client(client, school):
    """Django's admin is the site's superusers' (a school admin has their own pages): what a
    superuser changes there is on the school's log too."""
    client.force_login(
        factories.user(role="school_admin", school=None, is_superuser=True, is_staff=True)
    )
    return client


def test_the_programme_changed_in_the_admin(superuser_client, school):
    admin_client = superuser_client
    url = reverse("admin:classrooms_school_change", args=[school.pk])
    response = admin_client.post(
        url,
        {"name": school.name, "slug": school.slug, "time_zone": "Europe/Paris", "programme": "de"},
    )
    assert response.status_code == 302
    changed = one(Action.PROGRAMME_CHANGED)
    assert (changed.details["new"], changed.target_id) == ("de", school.pk)
    assert "to Germany: KMK Bildungsstandards" in describe(changed)


def test_an_admin_edit_of_a_class_is_logged(superuser_client, classroom):
    admin_client = superuser_client
    url = reverse("admin:classrooms_classroom_delete", args=[classroom.pk])
    admin_client.post(url, {"post": "yes"})
    deleted = one(Action.ADMIN_EDIT)
    assert deleted.details["change"] == "deleted" and deleted.target_id == classroom.pk


# --- append-only, retention -------------------------------------------------------------------


def test_rows_cannot_be_changed_or_deleted(school, teacher):
    row = record(None, Action.SIGNED_IN, teacher, actor=teacher)
    row.actor_name = "someone else"
    with pytest.raises(AppendOnly):
        row.save()
    with pytest.raises(AppendOnly):
        row.delete()
    with pytest.raises(AppendOnly):
        AuditEvent.objects.filter(pk=row.pk).update(actor_name="x")
    with pytest.raises(AppendOnly):
        AuditEvent.objects.all().delete()
    assert AuditEvent.objects.get(pk=row.pk).actor_name != "someone else"


def backdate(pks: list[int], when) -> None:
    """Move rows back in time with a raw UPDATE: the test plays the calendar, past the model's
    guard and (on PostgreSQL) inside the maintenance the trigger lets through."""
    with transaction.atomic(), maintenance(), connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {AuditEvent._meta.db_table} SET at = %s WHERE id = ANY(%s)"
            if connection.vendor == "postgresql"
            else f"UPDATE {AuditEvent._meta.db_table} SET at = %s WHERE id IN ({pks[0]}, {pks[1]})",
            [when, pks] if connection.vendor == "postgresql" else [when],
        )


def test_postgresql_itself_refuses_to_change_or_delete_a_row(teacher):
    need_service(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    row = record(None, Action.SIGNED_IN, teacher, actor=teacher)
    table = AuditEvent._meta.db_table
    for sql in (
        f"UPDATE {table} SET actor_name = 'x' WHERE id = %s",
        f"DELETE FROM {table} WHERE id = %s",
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(sql, [row.pk])
    assert AuditEvent.objects.get(pk=row.pk).actor_name == row.actor_name


def test_the_log_is_kept_as_long_as_the_play_data(school, other_school, teacher):
    old = record(None, Action.SIGNED_IN, teacher, actor=teacher)
    new = record(None, Action.SIGNED_IN, teacher, actor=teacher)
    foreign = record(None, Action.SCHOOL_CHANGED, other_school, actor=None)
    backdate([old.pk, foreign.pk], timezone.now() - timedelta(days=5 * 365))
    dry = retention_erase(dry_run=True)
    assert dry.counts["audit.AuditEvent"] == 2 and AuditEvent.objects.count() == 3
    assert "  2 entries of the staff's activity log" in dry.describe()
    done = retention_erase()
    assert done.counts["audit.AuditEvent"] == 2
    kept = AuditEvent.objects.exclude(action=Action.RETENTION_ERASED)
    assert list(kept.values_list("pk", flat=True)) == [new.pk]
    # Each school's log says the rule erased its rows, by nobody, with how many.
    erased = AuditEvent.objects.get(action=Action.RETENTION_ERASED, school=other_school)
    assert erased.actor_id is None and erased.details["count"] == 1
    assert AuditEvent.objects.filter(action=Action.RETENTION_ERASED).count() == 2
    assert retention_erase().counts["audit.AuditEvent"] == 0
    assert AuditEvent.objects.filter(action=Action.RETENTION_ERASED).count() == 2
    assert School.objects.filter(pk=other_school.pk).exists()


# --- the admin's page -------------------------------------------------------------------------


def _page(client, **params):
    return client.get(reverse("audit:activity"), params)


def test_the_admin_reads_their_schools_log_and_filters_it(
    admin_client, school, school_admin, teacher, other_school
):
    record(None, Action.CLASS_CREATED, school, actor=teacher)
    record(None, Action.EXPORT_CSV, school, actor=school_admin)
    faraway = factories.school_admin(school=other_school, username="faraway-head")
    record(None, Action.EXPORT_CSV, other_school, actor=faraway)
    page = _page(admin_client)
    assert page.status_code == 200
    body = page.content.decode()
    assert "Created a class" in body and "faraway-head" not in body
    filtered = _page(admin_client, action=Action.CLASS_CREATED).context["rows"]
    assert [e.action for e, *_rest in filtered] == [Action.CLASS_CREATED]
    by_person = _page(admin_client, person=teacher.pk).context["rows"]
    assert {e.actor_id for e, *_rest in by_person} == {teacher.pk}
    # Another school's person is no choice here: nothing shown, not their rows.
    foreign = _page(admin_client, person=faraway.pk)
    assert foreign.status_code == 200 and foreign.context["rows"] == []
    assert "faraway-head" not in foreign.content.decode()
    today = timezone.localdate()
    assert len(_page(admin_client, since=today.isoformat()).context["rows"]) >= 2
    tomorrow = (today + timedelta(days=2)).isoformat()
    assert _page(admin_client, since=tomorrow).context["rows"] == []
    # Bad input is a message in the page, never a 500.
    bad = _page(admin_client, since="someday", page="x", action="<script>")
    assert bad.status_code == 200 and bad.context["rows"] == []
    backwards = _page(admin_client, since=date(2027, 1, 2), until=date(2027, 1, 1))
    assert "The first day comes after the last day." in backwards.content.decode()


def test_another_schools_admin_never_reads_this_log(client, school, teacher, other_school):
    record(None, Action.CLASS_CREATED, school, actor=teacher, students=["Anna"])
    faraway = factories.school_admin(school=other_school, username="faraway-head")
    client.force_login(faraway)
    body = _page(client).content.decode()
    assert teacher.username not in body and "Anna" not in body
    for person in (teacher.pk, "", "999999"):
        response = _page(client, person=person)
        assert teacher.username not in response.content.decode()


def test_teachers_and_parents_have_no_log_page(client, teacher, school):
    client.force_login(teacher)
    assert _page(client).status_code == 403
    client.force_login(factories.parent(school=school))
    assert _page(client).status_code in (302, 403, 404)


def test_the_page_is_paginated_and_in_french(admin_client, school, school_admin):
    AuditEvent.objects.bulk_create(
        [
            AuditEvent(
                school=school, actor_id=school_admin.pk, actor_name="head", action=Action.EXPORT_CSV
            )
            for _i in range(120)
        ]
    )
    first = _page(admin_client)
    assert len(first.context["rows"]) == 50
    last = _page(admin_client, page=3)
    assert 20 <= len(last.context["rows"]) <= 22
    french = admin_client.get(reverse("audit:activity"), HTTP_ACCEPT_LANGUAGE="fr")
    assert "Journal des actions" in french.content.decode()
    german = admin_client.get(reverse("audit:activity"), HTTP_ACCEPT_LANGUAGE="de")
    assert "Aktivitätsprotokoll" in german.content.decode()


def test_a_settings_row_says_yes_no_and_now_in_the_readers_language(school, school_admin):
    """'yes', 'no' and 'now: …' of the settings' rows were in no catalogue: a French or German
    admin read them in English."""
    from django.utils import translation

    turned_on = record(
        None,
        Action.SCHOOL_CHANGED,
        school,
        actor=school_admin,
        changed=["admins_need_second_factor"],
        old=False,
        new=True,
    )
    first = record(None, Action.SCHOOL_CHANGED, school, actor=school_admin, new=True)
    said = {}
    for language in ("en", "fr", "de"):
        with translation.override(language):
            said[language] = (describe(turned_on), describe(first))
    assert "from no to yes" in said["en"][0] and "now: yes" in said["en"][1]
    assert "de non à oui" in said["fr"][0] and "désormais : oui" in said["fr"][1]
    assert "von nein zu ja" in said["de"][0]
    assert "jetzt: ja" in said["de"][1]
