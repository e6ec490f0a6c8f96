"""A child signs in on a shared tablet with three pictures, and hands it on with "I'm done"."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def test_tablet_sign_in_with_pictures_and_im_done(page, live_server):
    classroom = factories.classroom(school=factories.school())
    factories.student(classroom=classroom, name="Anna", picture_code="0-1-2")
    factories.student(classroom=classroom, name="Bo", picture_code="3-4-5")
    page.goto(live_server.url + "/")
    page.click("text=Students: sign in on a tablet")
    page.fill("#class-code", classroom.code.lower())
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Who are you?")
    page.click("a.name-btn:has-text('Anna')")
    # Wrong pictures: a friendly message, and the slots empty again.
    for picture in ("rainbow", "turtle", "boat"):
        page.click(f"button.picture-btn[aria-label='{picture}']")
    expect(page.locator(".signin-message")).to_have_text("Those are not your pictures. Try again!")
    expect(page.locator(".slot.filled")).to_have_count(0)
    page.click("button.picture-btn[aria-label='cat']")
    expect(page.locator(".slot.filled")).to_have_count(1)
    page.click("button.picture-btn[aria-label='dog']")
    page.click("button.picture-btn[aria-label='fish']")
    page.wait_for_url("**/me/")
    expect(page.locator("h1")).to_have_text("Hello Anna!")
    page.click("button.im-done")
    # The next child finds the class list, never Anna's home.
    expect(page.locator("h1")).to_have_text("Who are you?")
    page.goto(live_server.url + "/me/")
    expect(page.locator("h1")).to_have_text("Who are you?")
