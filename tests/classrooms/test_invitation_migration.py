"""The invitations' migrations (classrooms 0008, reports 0005) keep every outstanding invitation
working: a teacher's link e-mailed and a parent's code printed before the upgrade still redeem
after it, and what was already used stays used, by whom it was."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from classrooms import invitations
from classrooms.models import ParentLink, TeacherInvite, User
from classrooms.services import TEACHER_LINK
from reports.models import ParentInvite
from reports.services import PARENT_CODE
from tests import factories

BEFORE = [("classrooms", "0007_student_untimed"), ("reports", "0004_weeklyreport_mark")]
TOKEN = "an-e-mailed-link-token-made-before-the-upgrade"
CODE = "ABCD-EFGH-JK23"  # as printed on the slip
USED_TOKEN = "a-link-already-used-before-the-upgrade"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.django_db(transaction=True)
def test_a_link_and_a_code_made_before_the_migration_still_redeem_after_it():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    # The rows as the old code wrote them (the models of that migration state).
    school = old.get_model("classrooms", "School").objects.create(name="Skol", slug="skol")
    OldUser = old.get_model("classrooms", "User")
    admin = OldUser.objects.create(username="admin", role="school_admin", school_id=school.pk)
    joined = OldUser.objects.create(username="joined", role="teacher", school_id=school.pk)
    classroom = old.get_model("classrooms", "Classroom").objects.create(
        school_id=school.pk, name="CP", school_year="2026-2027", code="KAVETZ"
    )
    child = OldUser.objects.create(username="s-kavetz-anna", role="student")
    student = old.get_model("classrooms", "Student").objects.create(
        classroom_id=classroom.pk, name="Anna", picture_code="012", user_id=child.pk
    )
    in_two_weeks = timezone.now() + timedelta(days=14)
    OldTeacherInvite = old.get_model("classrooms", "TeacherInvite")
    OldTeacherInvite.objects.create(
        school_id=school.pk,
        created_by_id=admin.pk,
        first_name="Nolwenn",
        token_hash=_sha(TOKEN),
        expires_at=in_two_weeks,
    )
    OldTeacherInvite.objects.create(
        school_id=school.pk,
        token_hash=_sha(USED_TOKEN),
        expires_at=in_two_weeks,
        used_at=timezone.now(),
        user_id=joined.pk,
    )
    old.get_model("reports", "ParentInvite").objects.create(
        student_id=student.pk, code_hash=_sha(CODE.replace("-", "")), expires_at=in_two_weeks
    )

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    # What was used stays used, by the same teacher.
    used = TeacherInvite.objects.get(secret_hash=_sha(USED_TOKEN))
    assert used.state() == "used" and used.used_by_id == joined.pk
    with pytest.raises(invitations.InvitationRefused) as refused:
        invitations.open_secret(TEACHER_LINK, USED_TOKEN)
    assert refused.value.reason == invitations.USED

    # The e-mailed link opens its invitation and makes the teacher's account in the school.
    invite = invitations.open_secret(TEACHER_LINK, TOKEN)
    assert invite.first_name == "Nolwenn" and invite.created_by_id == admin.pk
    teacher = invitations.redeem(
        TEACHER_LINK, TOKEN, username="nolwenn", password="a long enough password 42"
    )
    assert (teacher.role, teacher.school_id) == (User.Role.TEACHER, school.pk)
    invite.refresh_from_db()
    assert invite.used_by == teacher

    # The printed code, typed as parents type it, links the child.
    parent = factories.parent()
    link = invitations.redeem(PARENT_CODE, CODE.lower(), parent=parent)
    assert isinstance(link, ParentLink) and link.student_id == student.pk
    assert ParentInvite.objects.get(student_id=student.pk).used_by == parent
