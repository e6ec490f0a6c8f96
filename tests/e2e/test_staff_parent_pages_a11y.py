"""axe-core over every teacher, school admin and parent page that test_accessibility.py and
test_school_admin_pages.py do not already visit, at 1280×800 and on a phone (issue 37): no
serious or critical problem. The pages are named by their URL names, so a renamed page fails
here instead of being skipped. The pages of a figure's moves need a week of play: they are
walked by test_accessibility.py's test_reports_pages_of_teacher_and_parent."""

from __future__ import annotations

import pytest
from django.urls import reverse

from classrooms.models import ParentLink
from tests import factories
from tests.e2e.helpers import sign_in_context
from tests.e2e.test_accessibility import AXE, serious

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"1280x800": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def _walk(new_context, live_server, user, size: str, pages: list[tuple[str, str]]) -> dict:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run npm ci (package.json pins axe-core)")
    mobile = {"is_mobile": True, "has_touch": True} if size == "phone" else {}
    context = new_context(bypass_csp=True, reduced_motion="reduce", viewport=SIZES[size], **mobile)
    sign_in_context(context, live_server, user)
    page = context.new_page()
    found = {}
    for name, url in pages:
        response = page.goto(live_server.url + url)
        assert response is not None and response.status == 200, (name, response and response.status)
        found[name] = serious(page)
    return {name: v for name, v in found.items() if v}


@pytest.mark.parametrize("size", list(SIZES))
def test_teacher_admin_and_parent_pages(new_context, live_server, size):
    school = factories.school()
    admin = factories.school_admin(school=school, username="head")
    teacher = factories.teacher(school=school, username="yann", first_name="Yann")
    room = factories.classroom(school=school, teachers=[teacher], name="CE1 Ar Mor")
    anna = factories.student(classroom=room, name="Anna", picture_code="0-1-2")
    factories.student(classroom=room, name="Bleuenn", picture_code="3-4-5")
    parent = factories.parent(school=school, username="mam")
    ParentLink.objects.create(parent=parent, student=anna)
    c, s = room.pk, anna.pk
    teacher_pages = [
        ("new class", reverse("classrooms:classroom_create")),
        ("class settings", reverse("classrooms:classroom_edit", args=[c])),
        ("next year's class", reverse("classrooms:classroom_copy", args=[c])),
        ("add students", reverse("classrooms:students_add", args=[c])),
        ("student", reverse("classrooms:student_edit", args=[c, s])),
        ("move a student", reverse("classrooms:student_move", args=[c, s])),
        ("remove a student", reverse("classrooms:student_remove", args=[c, s])),
        ("levels", reverse("classrooms:levels", args=[c])),
        ("sign-in cards", reverse("classrooms:signin_cards", args=[c])),
        ("find pictures", reverse("classrooms:code_lookup", args=[c])),
        ("class game set-up", reverse("classrooms:class_game_setup", args=[c])),
        ("history", reverse("classrooms:history", args=[c])),
        ("practice goals", reverse("games:practice_goals", args=[c])),
        ("progress: classes", reverse("reports:class_list")),
        ("progress: class", reverse("reports:class", args=[c])),
        ("progress: student", reverse("reports:student", args=[s])),
    ]
    admin_pages = [
        ("my classes (admin)", reverse("classrooms:teacher_home")),
        ("invitations", reverse("classrooms:invites")),
        ("erase a child", reverse("reports:student_erase", args=[s])),
    ]
    parent_pages = [
        ("parent home", reverse("reports:parent_home")),
        ("child's report", reverse("reports:child", args=[s])),
        ("email settings", reverse("reports:mail:settings")),
    ]
    found = {}
    found.update(_walk(new_context, live_server, teacher, size, teacher_pages))
    found.update(_walk(new_context, live_server, admin, size, admin_pages))
    found.update(_walk(new_context, live_server, parent, size, parent_pages))
    assert found == {}
