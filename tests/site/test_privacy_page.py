"""The privacy page (issue 12, item 6): what is kept, why, for how long, who sees it, in three
languages, linked from the footer of every page; and the compact phone header (a <details>
"Menu" under 700 px, at most 64 px tall at 390x844), looked at in Chromium."""

from __future__ import annotations

import os
import re

import pytest
from django.test import Client
from django.urls import reverse

from tests import factories
from tests.e2e.conftest import browser, new_context, playwright_instance  # noqa: F401

SHOTS = os.environ.get("KAVET_SHOTS", "")  # a folder to keep the screenshots in, if set
PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.mark.parametrize("language", ["en", "fr", "de"])
def test_privacy_page_in_each_language(db, language):
    response = Client().get(reverse("privacy"), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    assert response["Content-Language"] == language
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    for section in ("what", "not", "why", "how-long", "who", "where", "ask"):
        assert f'<h2 id="{section}">' in html
    assert not re.search(r"<script(?![^>]*\bsrc=)|\son\w+=|\sstyle=|<style", html)


def test_privacy_page_says_what_is_kept_and_for_how_long(db, settings):
    html = Client().get(reverse("privacy")).content.decode()
    for kept in (
        "class code",
        "first name",
        "sign-in pictures",
        "level",
        "plays",
        "progress report",
        "Parents' accounts",
        "Teachers' accounts",
    ):
        assert kept in html, kept
    assert "No photos of children." in html and "No tracking, no advertising" in html
    assert "A parent sees only their own child." in html
    assert "the 2 school years after it" in html  # KAVET_RETENTION_YEARS, 2 unless set
    settings.KAVET_RETENTION_YEARS = 3
    assert "the 3 school years after it" in Client().get(reverse("privacy")).content.decode()
    settings.KAVET_RETENTION_YEARS = 1
    assert "and the school year after it" in Client().get(reverse("privacy")).content.decode()


def test_every_kind_of_page_links_to_privacy(classroom, teacher):
    parent = factories.parent(school=classroom.school)
    signed_in = {None: Client(), "teacher": Client(), "parent": Client()}
    signed_in["teacher"].force_login(teacher)
    signed_in["parent"].force_login(parent)
    pages = [
        (None, reverse("home")),
        (None, reverse("login")),
        (None, reverse("games:tablet_signin")),
        (None, reverse("password_reset")),
        (None, "/no-such-page/"),
        ("teacher", reverse("classrooms:teacher_home")),
        ("teacher", reverse("classrooms:classroom_detail", args=[classroom.pk])),
        ("parent", reverse("reports:parent_home")),
        ("parent", reverse("classrooms:teacher_home")),  # the 403 page
    ]
    link = f'<a href="{reverse("privacy")}">Privacy: what we keep</a>'
    for who, url in pages:
        response = signed_in[who].get(url)
        assert response.status_code in (200, 403, 404), url
        assert link in response.content.decode(), url


def _header_height(page) -> float:
    return page.locator("header.site-header").bounding_box()["height"]


@pytest.mark.e2e
def test_phone_header_is_compact_with_a_menu(new_context, live_server, teacher, classroom):  # noqa: F811
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
    page.locator("footer.site-footer a").scroll_into_view_if_needed()
    assert page.locator("footer.site-footer a").is_visible()

    for width, height in ((768, 1024), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + reverse("classrooms:classroom_detail", args=[classroom.pk]))
        assert not page.locator("summary.site-menu-toggle").is_visible()
        assert page.locator(".site-nav >> text=New class").is_visible()
        assert page.locator("#language-select").is_visible()
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/header-{width}.png", full_page=True)
    assert _header_height(page) <= 80  # one row on a laptop


@pytest.mark.e2e
def test_pages_at_three_sizes(new_context, live_server, db):  # noqa: F811
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
