"""The teacher's pages on a 390 px phone never scroll sideways (QA report: the student page was
wider than the phone, its level history table pushing the page out; the levels table, the
finished games and the sign-in cards did the same). A wide table scrolls inside its own box."""

from __future__ import annotations

import pytest

from classrooms.models import LevelChange
from games import services
from tests import factories
from tests.e2e.helpers import sign_in_context

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def filled_class():
    school = factories.school()
    teacher = factories.teacher(
        school=school, username="yann", first_name="Yann-Fañch", last_name="Kerjean-Le Goff"
    )
    room = factories.classroom(school=school, teachers=[teacher], name="CE1 Ar Mor")
    kids = [
        factories.student(classroom=room, name=name, picture_code=code)
        for name, code in [("Anna", "0-1-2"), ("Bleuenn", "3-4-5"), ("Corentin", "6-7-8")]
    ]
    for kid in kids:
        LevelChange.objects.create(student=kid, number_range=20, tier=2, changed_by=teacher)
    game = services.game_create(
        school=school,
        classroom=room,
        label="Table 1",
        players=[{"student": kids[0]}, {"student": kids[1]}, {"bot": "medium", "name": "Robo"}],
        settings={"copies": 1, "x_cards": 0, "events": False},
    )
    services.game_start(game=game)
    services.game_end(game=game, by=teacher)
    return teacher, room, kids


def test_teacher_pages_fit_a_phone(new_context, live_server, filled_class):
    teacher, room, kids = filled_class
    context = new_context(viewport=PHONE)
    sign_in_context(context, live_server, teacher)
    page = context.new_page()
    base = f"{live_server.url}/teacher/classes/{room.pk}/"
    for path in ("", f"students/{kids[0].pk}/", "levels/", "history/", "sign-in-cards/"):
        page.goto(base + path)
        assert page.locator("main").count() == 1
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= PHONE["width"], f"{page.url} is {wide}px wide on a {PHONE['width']}px phone"
    # The student page's level history is all there, in a box that scrolls on its own.
    page.goto(base + f"students/{kids[0].pk}/")
    history = page.locator(".table-scroll[role=region]")
    assert "Kerjean-Le Goff" in history.inner_text()
    assert history.evaluate("e => getComputedStyle(e).overflowX") == "auto"
