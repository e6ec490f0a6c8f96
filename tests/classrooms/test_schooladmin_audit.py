"""What a school admin does on their own pages is on the activity log (issue 39): staff switched
off and on, a new-password link, a sign-in pause lifted, the programme, the keeping of play data,
the time zone, the class lists downloaded. A refused request writes no row."""

from __future__ import annotations

import pytest
from django.urls import reverse

from classrooms.audit.models import Action, AuditEvent

pytestmark = pytest.mark.django_db


def test_staff_actions_are_each_one_row(client, school, school_admin, teacher):
    client.force_login(school_admin)
    start = AuditEvent.objects.count()
    client.post(reverse("schooladmin:staff_active", args=[teacher.pk]), {"active": "0"})
    client.post(reverse("schooladmin:staff_active", args=[teacher.pk]), {"active": "1"})
    client.post(reverse("schooladmin:staff_password", args=[teacher.pk]))
    client.post(reverse("schooladmin:staff_unlock", args=[teacher.pk]))
    rows = list(AuditEvent.objects.order_by("pk")[start:])
    assert [r.action for r in rows] == [
        Action.STAFF_DEACTIVATED,
        Action.STAFF_REACTIVATED,
        Action.STAFF_PASSWORD_LINK,
        Action.STAFF_SIGNIN_UNLOCKED,
    ]
    assert {(r.actor_id, r.target_id, r.school_id) for r in rows} == {
        (school_admin.pk, teacher.pk, school.pk)
    }


def test_an_admin_refused_switching_themselves_off_writes_nothing(client, school_admin):
    client.force_login(school_admin)
    start = AuditEvent.objects.count()
    client.post(reverse("schooladmin:staff_active", args=[school_admin.pk]), {"active": "0"})
    school_admin.refresh_from_db()
    assert school_admin.is_active
    assert AuditEvent.objects.count() == start


def test_settings_changes_are_named_one_by_one(client, school, school_admin, settings):
    settings.KAVET_RETENTION_YEARS = 2
    client.force_login(school_admin)
    url = reverse("schooladmin:settings")
    start = AuditEvent.objects.count()
    client.post(url, {"programme": "de", "time_zone": "Europe/Berlin", "retention_years": "1"})
    rows = list(AuditEvent.objects.order_by("pk")[start:])
    assert [r.action for r in rows] == [
        Action.PROGRAMME_CHANGED,
        Action.RETENTION_CHANGED,
        Action.SCHOOL_CHANGED,
    ]
    assert rows[0].details["new"] == "de" and rows[1].details["new"] == 1
    # The same settings again, and a refused form: no row.
    client.post(url, {"programme": "de", "time_zone": "Europe/Berlin", "retention_years": "1"})
    client.post(url, {"programme": "xx", "time_zone": "Europe/Berlin", "retention_years": "1"})
    assert AuditEvent.objects.count() == start + 3


def test_the_class_lists_download_is_on_the_log(client, school, school_admin):
    client.force_login(school_admin)
    start = AuditEvent.objects.count()
    response = client.get(reverse("schooladmin:export"))
    assert response.status_code == 200
    (row,) = AuditEvent.objects.order_by("pk")[start:]
    assert (row.action, row.school_id) == (Action.ROSTER_EXPORTED, school.pk)


def test_the_weekly_emails_day_and_hour_are_linked_from_the_settings_and_logged(
    client, school, school_admin
):
    client.force_login(school_admin)
    page = client.get(reverse("schooladmin:settings")).content.decode()
    assert reverse("reports:mail:school_settings") in page
    start = AuditEvent.objects.count()
    client.post(reverse("reports:mail:school_settings"), {"weekday": "2", "hour": "17"})
    client.post(reverse("reports:mail:school_settings"), {"weekday": "9", "hour": "17"})
    (row,) = AuditEvent.objects.order_by("pk")[start:]
    assert (row.action, row.details["changed"], row.details["hour"]) == (
        Action.SCHOOL_CHANGED,
        "weekly_email",
        17,
    )
