"""A week of games in which the child announced no operation: the parent's page and PDF say so in
words, as the weekly email does, never "0 of 0 operations were right" (QA report)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from classrooms.models import ParentLink
from reports import pdf, services
from reports.views import _child_context
from tests import factories
from tests.reports.conftest import WEEK
from tests.reports.plays import one_move, paris

pytestmark = pytest.mark.django_db

WORDS = {
    "en": "No operation announced this week.",
    "fr": "Aucune opération annoncée cette semaine.",
    "de": "Diese Woche keine Rechnung angesagt.",
}


@pytest.fixture
def quiet(classroom, students):
    """Anna played one game this week and only said "nothing to do": no operation announced."""
    anna = students[0]
    one_move(
        classroom=classroom, student=anna, at=paris(2026, 11, 17, 9, 0), move={"type": "nothing"}
    )
    report = services.report_build(student=anna, week_start=WEEK)
    assert report.data["week"]["games"] == 1
    assert not report.data["week"].get("announcements")
    return anna


def _zero_of_zero(language: str) -> str:
    with translation.override(language):
        return translation.ngettext(
            "%(right)s of %(n)s operation was right.",
            "%(right)s of %(n)s operations were right.",
            0,
        ) % {"right": 0, "n": 0}


@pytest.mark.parametrize("language", ["en", "fr", "de"])
def test_the_parents_page_says_no_operation_in_words(client, quiet, language):
    parent = factories.parent()
    ParentLink.objects.create(parent=parent, student=quiet)
    client.force_login(parent)
    client.cookies["django_language"] = language
    response = client.get(reverse("reports:child", args=[quiet.pk]), HTTP_ACCEPT_LANGUAGE=language)
    html = response.content.decode()
    assert response.status_code == 200
    assert WORDS[language] in html
    assert _zero_of_zero(language) not in html
    # The games are still counted: the child did play this week.
    with translation.override(language):
        played = translation.ngettext(
            "%(games)s game played, about %(minutes)s min.",
            "%(games)s games played, about %(minutes)s min.",
            1,
        ).split("%")[0]
    assert played in html


def test_the_pdf_says_no_operation_in_words(quiet, monkeypatch):
    drawn: list[str] = []
    bullets = pdf._bullets

    def recording(words, style):
        drawn.extend(words)
        return bullets(words, style)

    monkeypatch.setattr(pdf, "_bullets", recording)
    report = quiet.weekly_reports.get()
    assert pdf.report_pdf(_child_context(quiet, report)).startswith(b"%PDF")
    assert WORDS["en"] in drawn
    assert not any(line.startswith("0 of 0") for line in drawn)
