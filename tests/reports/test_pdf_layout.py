"""The parent's PDF keeps each heading with what follows it (issue 12): "Week by week" never sits
alone at the bottom of page 1, whatever length the page above it has."""

from __future__ import annotations

import pytest
from reportlab.platypus import KeepTogether, Paragraph, Spacer

from reports import pdf
from reports.views import _child_context

pytestmark = pytest.mark.django_db


def _layout(context, monkeypatch) -> list[tuple[int, str, str]]:
    """(page, style name or kind, text) of every flowable drawn, as reportlab lays them out."""
    placed: list[tuple[int, str, str]] = []

    class Recording(pdf.SimpleDocTemplate):
        def afterFlowable(self, flowable):
            if isinstance(flowable, Paragraph):
                placed.append((self.page, flowable.style.name, flowable.getPlainText()))
            elif not isinstance(flowable, Spacer | KeepTogether):
                placed.append((self.page, type(flowable).__name__, ""))

    monkeypatch.setattr(pdf, "SimpleDocTemplate", Recording)
    assert pdf.report_pdf(context).startswith(b"%PDF")
    return placed


def test_headings_stay_with_what_follows_them(reported, monkeypatch):
    student = reported[0]
    context = _child_context(student, student.weekly_reports.get())
    assert context["charts"], "the fixture's child has a chart to draw"
    tips = list(context["tips"])
    pages_of_week_by_week = set()
    # More and more tips push "Week by week" down page 1, past its bottom, onto page 2.
    for extra in range(0, 40, 2):
        context["tips"] = tips + [
            {"skill": f"Skill {i}", "tip": "Play a round with cards 0 to 10 at home."}
            for i in range(extra)
        ]
        placed = _layout(context, monkeypatch)
        for here, after in zip(placed, placed[1:], strict=False):
            if here[1] == "h2":
                assert after[0] == here[0], f"{here[2]!r} alone at the bottom of page {here[0]}"
        heading = next(p for p in placed if p[2] == "Week by week")
        pages_of_week_by_week.add(heading[0])
        first_chart = next(p for p in placed if p[2] == context["charts"][0].title)
        assert first_chart[0] == heading[0], f"with {extra} tips"
    assert pages_of_week_by_week >= {1, 2}  # the boundary was crossed
