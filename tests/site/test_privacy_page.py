"""The privacy page (issue 12, item 6): what is kept, why, for how long, who sees it, in three
languages, linked from the footer of every page. The phone header and these pages in Chromium:
tests/e2e/test_header_privacy.py."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from tests import factories

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
