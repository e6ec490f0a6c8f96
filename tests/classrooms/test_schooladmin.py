"""The school admin's own pages (classrooms/schooladmin): staff, classes, settings, data, and
that another school's admin reaches nothing of this school through them."""

from __future__ import annotations

import re
from datetime import date

import pytest
from axes.models import AccessAttempt
from django.urls import reverse
from django.utils import translation

from classrooms import retention
from classrooms.models import Classroom, Rollover, School, Student, User
from tests import factories

pytestmark = pytest.mark.django_db

YEAR = "2026-2027"
PAGES = ["home", "staff", "classes", "settings", "data", "import", "year"]


def _attempts(username: str, failures: int, address: str = "10.1.2.3") -> None:
    AccessAttempt.objects.create(
        username=username,
        ip_address=address,
        user_agent="browser",
        http_accept="*/*",
        path_info="/login/",
        get_data="",
        post_data="",
        failures_since_start=failures,
    )


def test_the_admin_lands_next_to_a_link_to_their_pages_and_no_library_is_named(
    client, school, school_admin, teacher
):
    client.force_login(school_admin)
    landing = client.get(client.get("/")["Location"]).content.decode()
    assert reverse("schooladmin:home") in landing
    for page in PAGES:
        response = client.get(reverse(f"schooladmin:{page}"))
        assert response.status_code == 200, page
        text = response.content.decode()
        assert "axes" not in text.lower() and "django" not in text.lower(), page
    # A teacher, a parent and a child are turned away; Django's admin turns the school admin away.
    for user in (teacher, factories.parent(school=school)):
        client.force_login(user)
        assert client.get(reverse("schooladmin:home")).status_code == 403
    client.force_login(school_admin)
    response = client.get("/admin/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_staff_deactivated_reactivated_and_given_a_new_password_link(
    client, school, school_admin, teacher
):
    client.force_login(school_admin)
    client.post(reverse("schooladmin:staff_active", args=[teacher.pk]), {"active": "0"})
    teacher.refresh_from_db()
    assert not teacher.is_active
    client.logout()
    signin = client.post(
        reverse("login"), {"username": teacher.username, "password": "correct horse battery"}
    )
    assert signin.status_code == 200 and "_auth_user_id" not in client.session
    client.force_login(school_admin)
    client.post(reverse("schooladmin:staff_active", args=[teacher.pk]), {"active": "1"})
    teacher.refresh_from_db()
    assert teacher.is_active
    # The admin cannot lock themself out.
    response = client.post(
        reverse("schooladmin:staff_active", args=[school_admin.pk]), {"active": "0"}, follow=True
    )
    assert "cannot deactivate your own account" in response.content.decode()
    school_admin.refresh_from_db()
    assert school_admin.is_active
    # A new password link, shown once, opens the set-password form for that teacher.
    response = client.post(reverse("schooladmin:staff_password", args=[teacher.pk]), follow=True)
    link = re.search(r'value="(http://testserver/password-reset/[^"]+)"', response.content.decode())
    assert link
    assert "reset-link" not in client.get(reverse("schooladmin:staff")).content.decode()
    client.logout()
    form = client.get(link[1], follow=True)
    assert form.status_code == 200 and 'name="new_password1"' in form.content.decode()


def test_failed_sign_ins_are_said_in_plain_words_and_a_pause_is_lifted(
    client, school, school_admin, teacher
):
    _attempts(teacher.username, 5)
    _attempts(teacher.username, 1, "10.9.9.9")
    client.force_login(school_admin)
    page = client.get(reverse("schooladmin:staff")).content.decode()
    assert "6 wrong passwords lately, from 2 address(es)." in page
    assert "Signing in is paused for a few minutes." in page
    client.post(reverse("schooladmin:staff_unlock", args=[teacher.pk]))
    assert not AccessAttempt.objects.filter(username=teacher.username).exists()


def test_the_settings_are_saved_checked_and_the_retention_applies(
    client, school, school_admin, settings
):
    settings.KAVET_RETENTION_YEARS = 2
    client.force_login(school_admin)
    url = reverse("schooladmin:settings")
    response = client.post(
        url, {"programme": "de", "time_zone": "Europe/Berlin", "retention_years": "1"}
    )
    assert response.status_code == 302
    school.refresh_from_db()
    assert (school.programme, school.time_zone, school.retention_years) == (
        "de",
        "Europe/Berlin",
        1,
    )
    # One year kept: on 1 September 2026, the play data before 1 August 2025 goes.
    assert retention.cutoff_date(date(2026, 9, 1), school) == date(2025, 8, 1)
    assert retention.cutoff_date(date(2026, 9, 1)) == date(2024, 8, 1)
    for bad in (
        {"programme": "xx", "time_zone": "Europe/Paris", "retention_years": "1"},
        {"programme": "fr", "time_zone": "Mars/Olympus", "retention_years": "1"},
        {"programme": "fr", "time_zone": "Europe/Paris", "retention_years": "9"},
    ):
        response = client.post(url, bad)
        assert response.status_code == 200 and "errorlist" in response.content.decode()
    school.refresh_from_db()
    assert (school.programme, school.time_zone, school.retention_years) == (
        "de",
        "Europe/Berlin",
        1,
    )


def test_another_schools_admin_reaches_nothing_of_this_school(
    client, school, other_school, teacher
):
    """Every school-admin URL tried by school B's admin with school A's ids and names."""
    room = factories.classroom(school=school, teachers=[teacher], name="Avel", school_year=YEAR)
    anna = factories.student(classroom=room, name="Annaig")
    _attempts(teacher.username, 9)
    intruder = factories.school_admin(school=other_school, username="intruder")
    client.force_login(intruder)
    for name in ("staff_active", "staff_password", "staff_unlock"):
        response = client.post(reverse(f"schooladmin:{name}", args=[teacher.pk]), {"active": "0"})
        assert response.status_code == 404, name
    teacher.refresh_from_db()
    assert teacher.is_active and AccessAttempt.objects.filter(username=teacher.username).exists()
    for page in PAGES:
        text = client.get(reverse(f"schooladmin:{page}")).content.decode()
        assert "Annaig" not in text and "Avel" not in text and teacher.username not in text, page
    found = client.get(reverse("schooladmin:data"), {"q": "Annaig"}).content.decode()
    assert "No child found." in found
    assert b"Annaig" not in client.get(reverse("schooladmin:export"), {"year": YEAR}).content
    for url in ("reports:student_export", "reports:student_erase"):
        assert client.get(reverse(url, args=[anna.pk])).status_code == 404
    # An import naming this school's class, by name or by its tablet code, fills nothing.
    for cell in ("Avel", room.code):
        response = client.post(
            reverse("schooladmin:import"),
            {"school_year": YEAR, "paste": f"First name\tClass\nIntrus\t{cell}"},
        )
        assert 'name="payload"' not in response.content.decode()
    # The rollover of school B leaves school A's classes alone.
    factories.classroom(school=other_school, name="CP", school_year=YEAR)
    page = client.post(reverse("schooladmin:year"), {"preview": "1"})
    payload = re.search(r'name="payload" value="([^"]+)"', page.content.decode())[1]
    client.post(reverse("schooladmin:year"), {"confirm": "1", "payload": payload})
    assert Rollover.objects.get().school == other_school
    room.refresh_from_db()
    assert room.archived_at is None and Student.objects.get(pk=anna.pk).classroom_id == room.pk
    client.post(
        reverse("schooladmin:settings"),
        {"programme": "us", "time_zone": "UTC", "retention_years": "0"},
    )
    assert School.objects.get(pk=school.pk).programme == school.programme
    assert Classroom.objects.filter(school=school).count() == 1
    assert User.objects.get(pk=teacher.pk).is_active


@pytest.mark.parametrize(
    "language, one, many",
    [
        ("en", "1 member of staff, 1 open class, 1 child.", "3 members of staff, 2 open classes"),
        ("fr", "1 membre du personnel, 1 classe ouverte, 1 enfant.", "3 membres du personnel"),
        ("de", "1 offene Klasse, 1 Kind.", "2 offene Klassen, 3 Kinder."),
    ],
)
def test_the_school_in_numbers_each_number_with_its_own_plural(client, language, one, many):
    """'1 membres du personnel' was seen: the sentence followed only the children's count."""
    with translation.override("en"):  # the request's language is left active in this thread
        _school_in_numbers(client, language, one, many)


def _school_in_numbers(client, language: str, one: str, many: str) -> None:
    school = factories.school(slug=f"numbers-{language}", name="Numbers")
    admin = factories.school_admin(school=school, username=f"numbers-{language}")
    factories.student(classroom=factories.classroom(school=school, name="CP"), name="Anna")
    client.force_login(admin)
    page = client.get(reverse("schooladmin:home"), HTTP_ACCEPT_LANGUAGE=language)
    assert one in " ".join(page.content.decode().split())
    factories.teacher(school=school, username=f"t1-{language}")
    factories.teacher(school=school, username=f"t2-{language}")
    more = factories.classroom(school=school, name="CE1")
    for name in ("Bo", "Cleo"):
        factories.student(classroom=more, name=name)
    page = client.get(reverse("schooladmin:home"), HTTP_ACCEPT_LANGUAGE=language)
    assert many in " ".join(page.content.decode().split())


def test_the_time_zone_list_opens_on_the_zones_usual_for_the_programme(
    client, school, school_admin
):
    """Four hundred zones in one alphabetical list was seen: the school's usual zones come first,
    then every zone under its region, shown by its city."""
    school.programme = "fr"
    school.save()
    client.force_login(school_admin)
    page = client.get(reverse("schooladmin:settings"), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    translation.activate("en")
    select = page[
        page.index('name="time_zone"') : page.index("</select>", page.index('name="time_zone"'))
    ]
    groups = re.findall(r'<optgroup label="([^"]+)">', select)
    assert groups[0] == "Les plus courants pour cette école"
    assert {"Europe", "America", "Pacific", "Indian"} <= set(groups)
    first = re.findall(r'<option value="([^"]+)"', select)
    assert first[:2] == ["Europe/Paris", "America/Guadeloupe"]
    assert (
        '<option value="America/Argentina/Buenos_Aires">Argentina – Buenos Aires</option>' in select
    )
    # Every zone of the list is still offered once outside the usual group, and still accepted.
    assert first.count("Europe/Paris") == 2
