"""'Learn to play' in a real browser (issue 10, item 10): a child signs in, taps "Learn to
play" on their home, follows the coach through every step by tapping the ringed card or key,
waits for the computer player (a real engine bot, its real pauses), and reaches "Well done!".
Screenshots at 1024×768 and 768×1024 go to KAVET_SHOTS when it is set.
"""

from __future__ import annotations

import os

import pytest
from django.conf import settings as django_settings
from django.test import Client
from playwright.sync_api import expect

from games.models import Game
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = os.environ.get("KAVET_SHOTS", "")
SIZES = {"1024x768": (1024, 768), "768x1024": (768, 1024)}
BOT_WAIT = 30_000  # the computer's pauses are real: up to 9 s on its turn (R8.2)


def signed_in(new_context, live_server, student, size):
    client = Client()
    client.force_login(student.user)
    width, height = SIZES[size]
    context = new_context(viewport={"width": width, "height": height})
    context.add_cookies(
        [
            {
                "name": django_settings.SESSION_COOKIE_NAME,
                "value": client.cookies[django_settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    return context.new_page()


def shot(page, name):
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"tutorial-{name}.png"))


def follow_coach(page, key, size):
    """Wait for the coach's step, then tap whatever it rings until the step is done."""
    expect(page.locator(f"#coach[data-coach-key='{key}']")).to_be_visible(timeout=BOT_WAIT)
    shot(page, f"{key}-{size}")
    version = page.locator("#board").get_attribute("data-version")
    for _tap in range(12):
        ring = page.locator("#board .coach-tap")
        expect(ring).to_have_count(1)
        expect(ring).to_be_visible()
        box = ring.bounding_box()
        width, height = SIZES[size]
        assert box and box["y"] + box["height"] <= height + 0.5, f"{key}: the ring is off-screen"
        assert box["x"] + box["width"] <= width + 0.5, f"{key}: the ring is cut"
        is_button = ring.evaluate("el => el.matches('.act-announce, .act-nothing, .act-challenge')")
        ring.click()
        if is_button:
            expect(page.locator("#board")).not_to_have_attribute("data-version", version)
            return
    raise AssertionError(f"{key}: the coach never rang a button to send")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_child_learns_to_play_to_the_end(new_context, live_server, size):
    classroom = factories.classroom(school=factories.school())
    student = factories.student(classroom=classroom, name="Nolwenn", picture_code="0-1-2")
    page = signed_in(new_context, live_server, student, size)
    page.goto(f"{live_server.url}/me/")
    shot(page, f"home-{size}")
    page.get_by_role("button", name="Learn to play").click()
    expect(page.locator("#coach")).to_be_visible()
    game = Game.objects.get(seats__student=student)
    assert page.url.endswith(f"/play/{game.pk}/")

    follow_coach(page, "announce", size)
    follow_coach(page, "nothing", size)
    expect(page.locator("#coach[data-coach-key='wait']")).to_be_visible(timeout=BOT_WAIT)
    shot(page, f"wait-{size}")
    follow_coach(page, "challenge", size)  # the computer said 4 + 6 = 9
    follow_coach(page, "challenge_show", size)
    follow_coach(page, "skip", size)
    # The X card: the number pad opens, the coach rings 1, then OK, then = and 8.
    follow_coach(page, "x", size)
    follow_coach(page, "event", size)

    done = page.locator(".coach-done")
    expect(done).to_be_visible(timeout=BOT_WAIT)
    expect(done).to_contain_text("Well done!")
    expect(done).to_contain_text("You know how to play.")
    expect(done.locator("img.pic-trophy")).to_be_visible()
    shot(page, f"done-{size}")
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    done.get_by_role("link", name="Back home").click()
    expect(page.get_by_role("button", name="Learn to play")).to_be_visible()
