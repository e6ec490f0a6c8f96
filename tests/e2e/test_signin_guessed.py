"""Someone guesses a child's pictures on other tablets (issue 25): the guessers' tablets wait with
a page a child who does not read understands, the child's own tablet still signs them in, and
the teacher, warned on the class page, gives new pictures in one tap."""

from __future__ import annotations

from itertools import permutations

import pytest
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from classrooms import signin_locks
from classrooms.pictures import PICTURES, decode, encode
from tests import factories
from tests.e2e.helpers import sign_in_context

pytestmark = pytest.mark.django_db(transaction=True)


def _tap(page, student, code: str) -> None:
    page.click(f"a.name-btn:has-text('{student.name}')")
    for index in decode(code):
        page.get_by_role("button", name=str(PICTURES[index][2]), exact=True).click()


def _guess_from_other_tablets(classroom, student) -> None:
    wrong = (encode(p) for p in permutations(range(16), 3) if encode(p) != student.picture_code)
    for n in range(signin_locks.STRANGER_TRIES):
        guesser = Client(REMOTE_ADDR=f"198.51.100.{n}")
        guesser.post(reverse("games:tablet_signin"), {"code": classroom.code})
        *first, last = decode(next(wrong))
        guesser.post(
            reverse("games:tablet_pictures", args=[student.pk]),
            {"so_far": encode(first), "pick": last},
        )


def _join(page, live_server, classroom) -> None:
    page.goto(live_server.url + "/tablet/")
    page.fill("#class-code", classroom.code)
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Who are you?")


def test_guessed_pictures_pause_strangers_only_and_the_teacher_resets_them(
    new_context, live_server, tmp_path
):
    school = factories.school()
    teacher = factories.teacher(school=school)
    classroom = factories.classroom(school=school, teachers=[teacher])
    mael = factories.student(classroom=classroom, name="Maël", picture_code="13-4-15")
    tablet_size = {"width": 1024, "height": 768}

    own = new_context(viewport=tablet_size).new_page()
    _join(own, live_server, classroom)
    _tap(own, mael, mael.picture_code)
    own.wait_for_url("**/me/")
    own.click("button.im-done")

    _guess_from_other_tablets(classroom, mael)

    # A tablet Maël never used waits, even with the right pictures: the hourglass and the
    # teacher say so without reading, and no picture can be tapped.
    other = new_context(viewport=tablet_size).new_page()
    _join(other, live_server, classroom)
    other.click("a.name-btn:has-text('Maël')")
    expect(other.locator(".signin-message")).to_have_text(
        "Too many tries. Wait a few minutes, or ask your teacher for help."
    )
    for key in ("hourglass", "teacher"):
        icon = other.locator(f".signin-paused img.pic-{key}")
        expect(icon).to_be_visible()
        assert icon.evaluate("i => i.complete && i.naturalWidth > 0")
    expect(other.locator("button.picture-btn[disabled]")).to_have_count(16)
    # All of it on one tablet screen: the message, the pictures, "That's not me".
    for part in (".signin-message", ".signin-paused", ".picture-grid", ".signin-actions"):
        box = other.locator(part).bounding_box()
        assert box and box["y"] + box["height"] <= 768, part
    other.screenshot(path=str(tmp_path / "signin-paused.png"))

    # Maël's own tablet is not held up.
    _tap(own, mael, mael.picture_code)
    own.wait_for_url("**/me/")
    expect(own.locator("h1")).to_have_text("Hello Maël!")
    own.click("button.im-done")

    # The teacher is warned on the class page and gives new pictures in one tap.
    desk = new_context()
    sign_in_context(desk, live_server, teacher)
    class_page = desk.new_page()
    class_page.goto(live_server.url + reverse("classrooms:classroom_detail", args=[classroom.pk]))
    expect(class_page.locator(".signin-alert")).to_contain_text(
        "Someone is trying Maël's pictures."
    )
    class_page.get_by_role("button", name="Give Maël new pictures").click()
    class_page.wait_for_url("**/students/*/")
    mael.refresh_from_db()
    assert mael.picture_code != "13-4-15"
    for index in decode(mael.picture_code):
        expect(class_page.locator(f".pics.big img.pic-{PICTURES[index][1]}")).to_be_visible()
    class_page.goto(live_server.url + reverse("classrooms:classroom_detail", args=[classroom.pk]))
    expect(class_page.locator(".signin-alert")).to_have_count(0)

    # The teacher tells Maël the new pictures: they work on the tablet that was waiting.
    other.goto(live_server.url + "/tablet/")
    _tap(other, mael, mael.picture_code)
    other.wait_for_url("**/me/")
    expect(other.locator("h1")).to_have_text("Hello Maël!")
