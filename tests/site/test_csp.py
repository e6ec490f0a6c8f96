"""Content-Security-Policy (issue 9, finding 13): every main page is served with a policy whose
script-src has neither 'unsafe-inline' nor 'unsafe-eval', and its HTML carries no inline script,
no on*= event handler and no inline style for that policy to block. tests/e2e/test_csp.py drives
the same pages in Chromium and watches its console for violations."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from classgames.services import class_session_start
from classrooms.grouping import PlannedTable
from classrooms.models import ParentLink
from tests import factories
from tests.reports.plays import three_weeks_reported


@dataclass
class SitePage:
    name: str
    url: str
    user: object | None  # who reads it (None: anyone)


def build_site(school) -> list[SitePage]:
    """A school with a class, students who played, reports built, a parent, a running class game:
    one page of each main kind, with the user who reads it."""
    teacher = factories.teacher(school=school, username="csp-teacher")
    classroom = factories.classroom(school=school, teachers=[teacher])
    anna = factories.student(classroom=classroom, name="Anna")
    brieuc = factories.student(classroom=classroom, name="Brieuc")
    three_weeks_reported(classroom=classroom, anna=anna, brieuc=brieuc)
    parent = factories.parent(school=school, username="csp-parent")
    ParentLink.objects.create(parent=parent, student=anna)
    settings = {"challenge_window": 5, "turn_time": 60}
    session = class_session_start(
        classroom=classroom,
        by=teacher,
        settings=settings,
        tables=[PlannedTable(number=1, students=[anna, brieuc])],
    )
    table_game = session.games.get()
    return [
        SitePage("home", reverse("home"), None),
        SitePage("login", reverse("login"), None),
        SitePage("tablet sign-in", reverse("games:tablet_signin"), None),
        SitePage(
            "teacher class page",
            reverse("classrooms:classroom_detail", args=[classroom.pk]),
            teacher,
        ),
        SitePage(
            "class game setup", reverse("classrooms:class_game_setup", args=[classroom.pk]), teacher
        ),
        SitePage("levels", reverse("classrooms:levels", args=[classroom.pk]), teacher),
        SitePage("sign-in cards", reverse("classrooms:signin_cards", args=[classroom.pk]), teacher),
        SitePage(
            "invitations",
            reverse("classrooms:invites"),
            factories.school_admin(school=school, username="csp-admin"),
        ),
        SitePage("live session", reverse("classrooms:session_live", args=[session.pk]), teacher),
        SitePage("class report", reverse("reports:class", args=[classroom.pk]), teacher),
        SitePage("student report", reverse("reports:student", args=[anna.pk]), teacher),
        SitePage("child report", reverse("reports:child", args=[anna.pk]), parent),
        SitePage("parent home", reverse("reports:parent_home"), parent),
        SitePage("table page", reverse("games:table", args=[table_game.pk]), anna.user),
    ]


class InlineCode(HTMLParser):
    """What a strict CSP would block in a page: inline scripts, on*= handlers, inline styles."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._in_inline_script = False

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        for name, _value in attrs:
            if name.lower().startswith("on"):
                self.found.append(f"<{tag} {name}=…>")
            if name.lower() == "style" or name.lower().startswith("hx-on"):
                self.found.append(f"<{tag} {name}=…>")
        if tag == "script":
            self._in_inline_script = "src" not in names
        if tag == "style":
            self.found.append("<style> block")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_inline_script = False

    def handle_data(self, data):
        if self._in_inline_script and data.strip():
            self.found.append(f"inline <script>: {data.strip()[:60]}")


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    parser.close()
    return parser.found


def directives(header: str) -> dict[str, list[str]]:
    out = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


def test_the_parser_finds_what_the_policy_blocks():
    found = inline_code(
        '<button onclick="x()">a</button><script>alert(1)</script>'
        '<script src="/static/js/kavet.js"></script><p style="color:red">'
        '<style>p{}</style><div hx-on:click="x">'
    )
    assert len(found) == 5


@pytest.fixture
def site(db, school, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return build_site(school)


def test_every_main_page_has_a_strict_policy_and_no_inline_code(site):
    assert len(site) >= 10
    for page in site:
        client = Client()
        if page.user is not None:
            client.force_login(page.user)
        response = client.get(page.url)
        assert response.status_code == 200, page.name
        header = response.get("Content-Security-Policy", "")
        policy = directives(header)
        assert policy.get("script-src") == ["'self'"], (page.name, header)
        assert "'self'" in policy.get("style-src", []), (page.name, header)
        for directive in ("script-src", "style-src", "default-src"):
            assert "'unsafe-inline'" not in policy.get(directive, []), (page.name, directive)
            assert "'unsafe-eval'" not in policy.get(directive, []), (page.name, directive)
        assert policy.get("object-src") == ["'none'"]
        html = response.content.decode()
        assert inline_code(html) == [], page.name
        assert 'name="htmx-config"' in html and '"allowEval": false' in html, page.name
        assert "js/kavet.js" in html, page.name
