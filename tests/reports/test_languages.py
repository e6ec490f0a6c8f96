"""The parent's report, page and PDF, in the reader's language with real plurals: one count,
one sentence a translator can agree (ngettext), never "mistake(s)"."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse
from django.utils import translation

from classrooms import invitations
from reports import pdf, services
from reports.views import _child_context
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _language_back_to_english():
    """A request with Accept-Language leaves its language active in this thread: restore it."""
    with translation.override("en"):
        yield


@pytest.fixture
def child(teacher, reported):
    """A child whose week had one right challenge, two false ones, one overlooked operation."""
    student = reported[0]
    report = student.weekly_reports.get()
    report.data["week"].update(
        games=1, right_challenges=1, false_challenges=2, overlooked=1, cards_won=1
    )
    report.data["year"].update(games=1)
    report.save(update_fields=["data"])
    return student, report


def pdf_words(context, monkeypatch) -> str:
    """Every piece of text put into the PDF (its streams are compressed and font-encoded)."""
    seen: list[str] = []
    real = pdf.escape

    def spy(text, *args):
        seen.append(str(text))
        return real(text, *args)

    monkeypatch.setattr(pdf, "escape", spy)
    assert pdf.report_pdf(context).startswith(b"%PDF")
    return "\n".join(seen)


def test_the_pdf_counts_in_french_with_real_plurals(child, monkeypatch):
    student, report = child
    with translation.override("fr"):
        words = pdf_words(_child_context(student, report), monkeypatch)
    assert (
        "«\u00a0Kavet 'm eus!\u00a0»\u00a0: a repéré 1 erreur d'autres joueurs. "
        "2 fois, il n'y avait finalement pas d'erreur." in words
    )
    assert "1 carte gagnée dans des plis." in words
    assert (
        "A dit «\u00a0rien à faire\u00a0» une fois alors qu'une opération était possible." in words
    )
    assert "Depuis le début de l'année scolaire\u00a0: 1 partie, environ" in words
    assert "(s)" not in words and "time(s)" not in words
    # Band explanations and tips: "label : text" with the French space before the colon.
    assert any(line.count("\u00a0: ") for line in words.splitlines() if line.startswith("Solide"))


def test_the_pdf_in_german(child, monkeypatch):
    student, report = child
    with translation.override("de"):
        words = pdf_words(_child_context(student, report), monkeypatch)
    assert (
        "„Kavet 'm eus!“: 1 Fehler anderer Spieler entdeckt. 2-mal war es doch kein Fehler."
        in words
    )
    assert "1 Karte in Stichen gewonnen." in words
    assert "Seit Beginn des Schuljahres: 1 Spiel, etwa" in words


def test_the_parents_page_counts_in_french(client, teacher, child):
    student, _report = child
    parent = factories.parent()
    _invite, code = invitations.create(services.PARENT_CODE, target=student, by=teacher)
    invitations.redeem(services.PARENT_CODE, code, parent=parent)
    client.force_login(parent)
    page = html.unescape(
        client.get(
            reverse("reports:child", args=[student.pk]), HTTP_ACCEPT_LANGUAGE="fr"
        ).content.decode()
    )
    page = re.sub(r'<a class="figure-link"[^>]*>([^<]*)</a>', r"\1", page)  # numbers are links
    assert "a repéré 1 erreur d'autres joueurs." in page
    assert "2 fois, il n'y avait finalement pas d'erreur." in page
    assert "Depuis le début de l'année scolaire\u00a0: 1 partie, environ" in page
    assert "(s)" not in page
