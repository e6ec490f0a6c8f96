"""Charts: server-drawn SVG with a text alternative that says what the bars show."""

from __future__ import annotations

from datetime import date

from reports.charts import skill_chart


def test_a_chart_has_a_bar_per_week_played_and_says_it_in_words():
    series = [["2026-11-02", 10, 5], ["2026-11-16", 8, 8]]
    chart = skill_chart("addsub_10", series, until=date(2026, 11, 16), weeks=4)
    svg = str(chart.svg)
    assert svg.startswith("<svg") and 'role="img"' in svg and 'viewBox="0 0 360 190"' in svg
    assert svg.count("<rect") == 2  # two weeks with play; the others are marks on the axis
    assert '<title id="chart-addsub_10-t">Adding and taking away within 10</title>' in svg
    assert chart.summary == (
        "Adding and taking away within 10: tried in 2 of the last 4 weeks. "
        "In the week of 16/11, 8 right out of 8 tries (100 %). Better than the week before."
    )
    assert [(p.n, p.right, p.percent) for p in chart.points] == [(10, 5, 50), (8, 8, 100)]


def test_a_week_with_play_and_no_right_answer_still_shows():
    chart = skill_chart("div", [["2026-11-16", 3, 0]], until=date(2026, 11, 16), weeks=2)
    assert 'height="3.0"' in str(chart.svg)


def test_text_in_the_chart_is_escaped():
    chart = skill_chart("<script>", [["2026-11-16", 1, 1]], until=date(2026, 11, 16), weeks=1)
    assert "<script>" not in str(chart.svg)
