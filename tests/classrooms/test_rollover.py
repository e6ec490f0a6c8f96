"""The year's rollover (classrooms/rollover.py, the school admin's "New school year" page)."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from classrooms import rollover, services
from classrooms.models import Classroom, LevelChange, ParentLink, Rollover, Student
from reports.models import WeeklyReport
from tests import factories

from .conftest import finished_game_rows

OLD, NEW = "2025-2026", "2026-2027"


@pytest.mark.parametrize(
    ("name", "programme", "proposed"),
    [
        ("CP", "fr", "CE1"),
        ("CE1 A", "fr", "CE2 A"),
        ("CP/CE1", "fr", "CE1/CE2"),
        ("CM1/CM2", "fr", "CM1/CM2"),  # the CM2 leave, the class stays a CM1/CM2 class
        ("Year 4/5", "us", "Year 4/5"),
        ("GS-CP", "fr", "CP-CE1"),
        ("CM2", "fr", None),
        ("cm2 b", "fr", None),
        ("Year 3", "us", "Year 4"),
        ("Grade 5", "us", None),
        ("Klasse 3a", "de", "Klasse 4a"),
        ("4b", "de", None),
        ("Les dauphins", "fr", "Les dauphins"),
        ("Room 12", "us", "Room 12"),
    ],
)
def test_the_proposed_names_move_one_grade_up_and_the_last_grade_leaves(name, programme, proposed):
    assert rollover.name_proposed(name, programme) == proposed


@pytest.fixture
def year_of_history(school, teacher):
    """Three classes of 2025-2026, each child with a year of weekly reports, level changes, a
    parent, and a class game played."""
    school.programme = "fr"
    school.save()
    classes = {}
    parent = factories.parent(username="mum")
    for name in ("CP", "CE1 A", "CM2"):
        room = factories.classroom(school=school, teachers=[teacher], name=name, school_year=OLD)
        classes[name] = room
        for i in range(3):
            kid = factories.student(classroom=room, name=f"{name} kid {i}")
            services.levels_set(students=[kid], number_range=20, tier=2)
            ParentLink.objects.create(parent=parent, student=kid)
            monday = date(2025, 9, 1)
            WeeklyReport.objects.bulk_create(
                WeeklyReport(
                    student=kid,
                    week_start=monday + timedelta(weeks=w),
                    data={"week": w},
                    built_at=timezone.now(),
                )
                for w in range(40)
            )
        finished_game_rows(room)
    return classes


def _snapshot(school):
    return {
        s.pk: (s.name, s.picture_code, s.level, s.classroom.name, s.classroom.school_year)
        for s in Student.objects.filter(classroom__school=school).select_related("classroom")
    }


def _payload(response) -> str:
    match = re.search(r'name="payload" value="([^"]+)"', response.content.decode())
    assert match, "no confirm offered"
    return match[1]


@pytest.mark.django_db
def test_every_child_moves_one_class_up_leavers_are_archived_and_undo_puts_it_back(
    client, school, school_admin, year_of_history
):
    client.force_login(school_admin)
    before = _snapshot(school)
    counts = (LevelChange.objects.count(), WeeklyReport.objects.count(), ParentLink.objects.count())
    url = reverse("schooladmin:year")
    page = client.get(url).content.decode()
    ids = {name: room.pk for name, room in year_of_history.items()}
    assert f'name="name-{ids["CP"]}" value="CE1"' in page
    assert f'name="leaves-{ids["CM2"]}" value="1" checked' in page
    # The admin renames one proposal, previews (nothing written), then confirms.
    form = {
        f"name-{ids['CP']}": "CE1 B",
        f"name-{ids['CE1 A']}": "CE2 A",
        f"leaves-{ids['CM2']}": "1",
    }
    response = client.post(url, {**form, "preview": "1"})
    assert "CP becomes CE1 B (3 children)." in response.content.decode()
    assert _snapshot(school) == before
    response = client.post(url, {"confirm": "1", "payload": _payload(response)})
    assert response.status_code == 302
    after = _snapshot(school)
    moved_to = {"CP": ("CE1 B", NEW), "CE1 A": ("CE2 A", NEW), "CM2": ("CM2", OLD)}
    for pk, (name, pictures, level, room, _year) in before.items():
        assert after[pk] == (name, pictures, level, *moved_to[room])  # same child, pictures, level
    assert Classroom.objects.get(pk=ids["CM2"]).archived_at is not None
    assert (
        Classroom.objects.filter(school=school, school_year=OLD, archived_at__isnull=True).count()
        == 0
    )
    new_cp = Classroom.objects.get(school=school, school_year=NEW, name="CE1 B")
    assert new_cp.code != year_of_history["CP"].code and list(new_cp.teachers.all())
    # Reports, level history and parents' links are the children's and stayed with them.
    assert (
        LevelChange.objects.count(),
        WeeklyReport.objects.count(),
        ParentLink.objects.count(),
    ) == counts
    leaver = Student.objects.get(name="CM2 kid 0")
    assert (
        leaver.weekly_reports.count() == 40 and leaver.parent_links.filter(revoked_at=None).exists()
    )
    # Undo, the same day: everything is as it was.
    response = client.post(reverse("schooladmin:year_undo"))
    assert response.status_code == 302
    assert _snapshot(school) == before
    assert not Classroom.objects.filter(school=school, school_year=NEW).exists()
    assert (
        Classroom.objects.filter(school=school, school_year=OLD, archived_at__isnull=True).count()
        == 3
    )
    assert Rollover.objects.get().undone_at is not None
    assert (
        LevelChange.objects.count(),
        WeeklyReport.objects.count(),
        ParentLink.objects.count(),
    ) == counts


@pytest.mark.django_db
def test_undo_is_refused_the_next_day_or_once_a_new_class_has_played(
    client, school, school_admin, year_of_history
):
    choices = {}
    plan = rollover.rollover_plan(school=school, from_year=OLD, choices=choices)
    done = rollover.rollover_apply(
        school=school, from_year=OLD, choices=choices, digest=plan.digest(), by=school_admin
    )
    new_cp = Classroom.objects.get(
        pk=done.moves[[m["from"] for m in done.moves].index(year_of_history["CP"].pk)]["to"]
    )
    finished_game_rows(new_cp)
    client.force_login(school_admin)
    client.post(reverse("schooladmin:year_undo"))
    assert Student.objects.filter(classroom=new_cp).count() == 3  # nothing was undone
    page = client.get(reverse("schooladmin:year")).content.decode()
    assert "has already played" in page
    Rollover.objects.update(done_at=timezone.now() - timedelta(days=1))
    assert rollover.rollover_undoable(school) is None
    client.post(reverse("schooladmin:year_undo"))
    assert (
        "Only a rollover done today can be undone."
        in client.get(reverse("schooladmin:year")).content.decode()
    )


@pytest.mark.django_db
def test_clashing_names_are_said_on_their_class_and_a_stale_confirm_is_refused(
    client, school, school_admin, teacher, year_of_history
):
    factories.classroom(school=school, teachers=[teacher], name="CE2 A", school_year=NEW)
    client.force_login(school_admin)
    ids = {name: room.pk for name, room in year_of_history.items()}
    url = reverse("schooladmin:year")
    response = client.post(
        url,
        {
            f"name-{ids['CP']}": "CE2 a",
            f"name-{ids['CE1 A']}": "CE2 A",
            f"leaves-{ids['CM2']}": "1",
            "preview": "1",
        },
    )
    page = response.content.decode()
    assert response.status_code == 400 and 'name="payload"' not in page
    assert "already has a class called “CE2 a” in 2026-2027" in page
    # Fixed, previewed, and then a teacher opens a new class of 2025-2026: the confirm is stale.
    response = client.post(
        url,
        {
            f"name-{ids['CP']}": "CE1",
            f"name-{ids['CE1 A']}": "CE2 B",
            f"leaves-{ids['CM2']}": "1",
            "preview": "1",
        },
    )
    payload = _payload(response)
    factories.classroom(school=school, teachers=[teacher], name="CE1 B", school_year=OLD)
    client.post(url, {"confirm": "1", "payload": payload})
    assert "changed since this preview" in client.get(url).content.decode()
    assert not Rollover.objects.exists()
    assert Classroom.objects.filter(school=school, school_year=NEW).count() == 1


@pytest.mark.django_db
def test_the_ending_year_is_the_earliest_open_one_and_another_can_be_picked(
    client, school, school_admin, teacher, year_of_history
):
    factories.classroom(school=school, teachers=[teacher], name="CE2 A", school_year=NEW)
    client.force_login(school_admin)
    url = reverse("schooladmin:year")
    page = client.get(url).content.decode()
    assert "Class in 2025-2026" in page and f'<option value="{NEW}"' in page
    page = client.get(url, {"from": NEW}).content.decode()
    assert "Class in 2026-2027" in page and "CE2 A" in page and "CM2" not in page
    assert "Class in 2025-2026" in client.get(url, {"from": "1999-2000"}).content.decode()
