"""The compact phone header (issue 12: a <details> "Menu" under 700 px, at most 64 px tall at
390x844, open inline on wider screens) and the privacy and error pages at three sizes, in Chromium.
KAVET_SHOTS=<folder> keeps the screenshots."""

from __future__ import annotations

import os
import re

import pytest
from django.urls import reverse

SHOTS = os.environ.get("KAVET_SHOTS", "")
PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _header_height(page) -> float:
    return page.locator("header.site-header").bounding_box()["height"]


def test_phone_header_is_compact_with_a_menu(new_context, live_server, teacher, classroom):
    page = new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(live_server.url + "/login/")
    page.fill("input[name=username]", teacher.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(r".*/classes/.*|.*/teacher.*|.*/$"))
    page.goto(live_server.url + reverse("classrooms:classroom_detail", args=[classroom.pk]))
    menu = page.locator("summary.site-menu-toggle")
    assert menu.is_visible() and menu.inner_text().strip().startswith("Menu")
    assert _header_height(page) <= 64
    assert not page.locator(".site-nav >> text=New class").is_visible()
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/header-390-closed.png")
    menu.click()
    new_class = page.locator(".site-nav >> text=New class")
    assert new_class.is_visible() and page.locator("#language-select").is_visible()
    assert page.locator(".site-nav button:has-text('Sign out')").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/header-390-open.png")
    privacy = page.locator("footer.site-footer a[href='/privacy/']")
    privacy.scroll_into_view_if_needed()
    assert privacy.is_visible()

    for width, height in ((768, 1024), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + reverse("classrooms:classroom_detail", args=[classroom.pk]))
        assert not page.locator("summary.site-menu-toggle").is_visible()
        assert page.locator(".site-nav >> text=New class").is_visible()
        assert page.locator("#language-select").is_visible()
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/header-{width}.png", full_page=True)
    assert _header_height(page) <= 80  # one row on a laptop


def test_pages_at_three_sizes(new_context, live_server, db):
    """The privacy page and a child's 404 at phone, tablet and laptop sizes: no sideways scroll."""
    for width, height in ((390, 844), (768, 1024), (1280, 800)):
        context = new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.goto(live_server.url + reverse("privacy"))
        assert page.locator("h1").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/privacy-{width}.png", full_page=True)
        response = page.goto(live_server.url + reverse("games:table", args=[4242]))
        assert response.status == 404
        back = page.locator("a.error-back-class")
        assert back.is_visible() and back.bounding_box()["height"] >= 64
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/404-child-{width}.png", full_page=True)
