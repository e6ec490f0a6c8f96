"""Privacy: a school admin exports everything about a child, and erases it, reports included."""

from __future__ import annotations

import json

from django.urls import reverse

from classrooms import invitations
from classrooms.models import ParentLink, Student
from games.models import Play, Seat
from reports import services
from reports.models import LevelRecommendation, ParentInvite, WeeklyReport
from tests import factories


def test_admin_exports_a_students_data_as_json(client, school, teacher, reported):
    anna = reported[0]
    invitations.create(services.PARENT_CODE, target=anna, by=teacher)
    type(anna).objects.filter(pk=anna.pk).update(parent_email="anna.parent@example.org")
    admin = factories.school_admin(school=school)
    client.force_login(admin)
    response = client.get(reverse("reports:student_export", args=[anna.pk]))
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert data["student"]["name"] == "Anna"
    assert data["student"]["parent_email"] == "anna.parent@example.org"  # the roster's
    assert len(data["plays"]) == Play.objects.filter(student=anna).count() == 13
    assert [r["week_start"] for r in data["weekly_reports"]] == ["2026-11-16"]
    assert data["games"][0]["position"] == 0 and data["levels"][0]["tier"] == 1
    assert len(data["parent_invites"]) == 1 and "code_hash" not in json.dumps(data)
    # A play as stored, with its operation, but not whose it is nor the move it came from.
    play = data["plays"][0]
    assert {"operation", "uses_x", "missed_operation", "reaction_ms"} <= play.keys()
    assert not {"student_id", "move_id"} & play.keys()
    # Nobody else's plays in it.
    assert {p["id"] for p in data["plays"]} == set(
        Play.objects.filter(student=anna).values_list("id", flat=True)
    )


def test_only_the_schools_admin_may_export_or_erase(client, teacher, reported, other_school):
    anna = reported[0]
    for user in (teacher, factories.school_admin(school=other_school), factories.parent()):
        client.force_login(user)
        assert client.get(reverse("reports:student_export", args=[anna.pk])).status_code == 404
        assert (
            client.post(
                reverse("reports:student_erase", args=[anna.pk]), {"confirm_name": "Anna"}
            ).status_code
            == 404
        )
    assert Student.objects.filter(pk=anna.pk).exists()


def test_erasing_removes_the_child_from_the_reports_too(client, school, teacher, reported):
    anna = reported[0]
    parent = factories.parent()
    _invite, code = invitations.create(services.PARENT_CODE, target=anna, by=teacher)
    invitations.redeem(services.PARENT_CODE, code, parent=parent)
    LevelRecommendation.objects.create(
        student=anna,
        from_number_range=10,
        from_tier=1,
        number_range=20,
        tier=1,
        evidence={"direction": "up"},
    )
    admin = factories.school_admin(school=school)
    client.force_login(admin)
    wrong = client.post(reverse("reports:student_erase", args=[anna.pk]), {"confirm_name": "anna"})
    assert wrong.status_code == 400 and Student.objects.filter(pk=anna.pk).exists()

    response = client.post(
        reverse("reports:student_erase", args=[anna.pk]), {"confirm_name": "Anna"}
    )
    assert response.status_code == 302
    assert not Student.objects.filter(pk=anna.pk).exists()
    for model in (WeeklyReport, LevelRecommendation, ParentInvite, ParentLink, Play):
        assert not model.objects.filter(student_id=anna.pk).exists(), model
    assert WeeklyReport.objects.count() == 2  # the classmates' reports stay
    assert not Seat.objects.filter(name="Anna").exists()
    client.force_login(parent)
    assert client.get(reverse("reports:child", args=[anna.pk])).status_code == 404
