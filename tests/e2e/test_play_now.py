"""One tap to start, as a new teacher tries it (issue 28): the class page's attendance, "Play
now", the projector's class board with the class code and its QR code, a tablet joining by the
QR's address (the class code filled in: the child only taps their name and pictures), and the
child's name lighting up on the board as they sit down at their table.

Screenshots of the new pages go to $KAVET_SCREENSHOTS (docs/screenshots/ holds the committed
ones: KAVET_SCREENSHOTS=docs/screenshots)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from classgames.models import ClassAttendance, ClassSession
from games.models import Seat
from games.signin import join_key
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery"
SHOTS = Path(os.environ.get("KAVET_SCREENSHOTS", "/tmp/kavet-play-now-shots"))
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def school_class(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    school = factories.school()
    teacher = factories.teacher(school=school, username="yann", password=PASSWORD)
    room = factories.classroom(school=school, teachers=[teacher], name="CE1 Ar Mor")
    kids = [
        factories.student(classroom=room, name=name, number_range=10, tier=1, picture_code=code)
        for name, code in [("Anna", "0-1-2"), ("Bleuenn", "3-4-5"), ("Corentin", "6-7-8")]
    ]
    kids.append(factories.student(classroom=room, name="Dewi", number_range=20, tier=2))
    return room, kids


def sign_in(page, base: str) -> None:
    page.goto(base + "/login/")
    page.fill("input[name=username]", "yann")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/teacher/.*"))


def assert_no_sideways_scroll(page) -> None:
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= PHONE["width"] + 1, f"{page.url} scrolls sideways on a phone ({wide}px)"


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_one_tap_start_and_a_tablet_joining_by_the_qr_code(new_context, live_server, school_class):
    room, kids = school_class
    teacher_page = new_context().new_page()
    sign_in(teacher_page, live_server.url)
    teacher_page.goto(f"{live_server.url}/teacher/classes/{room.pk}/")

    # One tap marks Dewi absent (HTMX swaps the block in place); the class remembers it.
    block = teacher_page.locator("#play-now")
    expect(block.locator("button[aria-pressed=true]")).to_have_count(4)
    block.locator("button.attendance-chip:has-text('Dewi')").click()
    expect(block.locator("button.attendance-chip.absent")).to_have_text(re.compile("Dewi"))
    expect(block.locator("button[aria-pressed=true]")).to_have_count(3)
    assert ClassAttendance.objects.get(classroom=room).absent == [kids[3].pk]
    expect(block).to_contain_text("3 students present")
    shot(teacher_page, "class-page-play-now")
    # On a phone: the same block, readable without sideways scrolling, the attendance kept.
    phone = new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    sign_in(phone, live_server.url)
    phone.goto(f"{live_server.url}/teacher/classes/{room.pk}/")
    expect(phone.locator("#play-now button.attendance-chip.absent")).to_have_text(
        re.compile("Dewi")
    )
    phone.locator("#play-now").scroll_into_view_if_needed()
    assert_no_sideways_scroll(phone)
    shot(phone, "class-page-phone")

    # The class board is one link away from the class page.
    board_link = block.locator("a:has-text('Open the class board on the projector')")
    expect(board_link).to_have_attribute("href", f"/board/class/{room.pk}/")

    # One tap starts the class game and puts the board on the projector.
    block.locator("button:has-text('Play now')").click()
    teacher_page.wait_for_url(re.compile(r".*/board/session/\d+/"))
    session = ClassSession.objects.get(classroom=room)
    assert set(
        Seat.objects.filter(game__class_table__session=session, bot="").values_list(
            "student__name", flat=True
        )
    ) == {"Anna", "Bleuenn", "Corentin"}
    expect(teacher_page.locator(".board-join-code")).to_contain_text(room.code)
    qr = teacher_page.locator("img.board-join-qr")
    expect(qr).to_be_visible()
    assert qr.evaluate("img => img.complete && img.naturalWidth > 100")
    join_url = qr.get_attribute("data-join-url")
    assert join_url == f"{live_server.url}/tablet/?code={room.code}&k={join_key(room.code)}"
    expect(teacher_page.locator(".board-join-url a")).to_have_attribute("href", join_url)
    anna_on_board = teacher_page.locator(".board-seat:has-text('Anna')")
    expect(anna_on_board).to_have_attribute("data-seated", "0")
    shot(teacher_page, "class-board-join")

    # A new tablet opens the QR's address: the code is filled in, one tap to remember it.
    tablet = new_context(viewport={"width": 1024, "height": 768}).new_page()
    tablet.goto(join_url)
    expect(tablet.locator("#class-code")).to_have_value(room.code)
    tablet.click("button[type=submit]")
    expect(tablet.locator("h1")).to_have_text("Who are you?")
    tablet.click("a.name-btn:has-text('Anna')")
    for picture in ("cat", "dog", "fish"):
        tablet.click(f"button.picture-btn[aria-label='{picture}']")
    tablet.wait_for_url("**/me/")
    tablet.click("text=Go to my table")
    tablet.wait_for_url(re.compile(r".*/play/\d+/"))

    # On the projector, Anna's name lights up by itself; the others wait.
    expect(anna_on_board).to_have_attribute("data-seated", "1", timeout=15_000)
    expect(anna_on_board).to_have_class(re.compile("is-seated"))
    expect(teacher_page.locator(".board-seat:has-text('Bleuenn')")).to_have_attribute(
        "data-seated", "0"
    )
    shot(teacher_page, "class-board-seated")

    # The live view links to the board; /board/ leads to the class's board too.
    teacher_page.goto(f"{live_server.url}/teacher/class-games/{session.pk}/")
    teacher_page.click("a:has-text('Class board')")
    teacher_page.wait_for_url(f"**/board/session/{session.pk}/")
    teacher_page.goto(f"{live_server.url}/board/")
    teacher_page.wait_for_url(f"**/board/session/{session.pk}/")

    phone.goto(f"{live_server.url}/board/session/{session.pk}/")
    expect(phone.locator(".board-seat.is-seated")).to_have_text(re.compile("Anna"))
    assert_no_sideways_scroll(phone)
    shot(phone, "class-board-phone")
