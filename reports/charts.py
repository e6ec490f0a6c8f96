"""Charts drawn on the server as SVG: one per skill over the weeks, with a text alternative."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.utils.formats import date_format
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from .progress import BAND_BY_KEY, SKILL_LABELS, band_for

# A 360-unit-wide drawing: on a phone held upright one unit is about one pixel, so the
# 13-unit labels stay readable without zooming; on wider screens it simply scales up.
WIDTH, HEIGHT = 360, 190
LEFT, RIGHT, TOP, BOTTOM = 48, 8, 14, 40
WEEKS_SHOWN = 12


@dataclass
class WeekPoint:
    week_start: date
    label: str
    n: int
    right: int

    @property
    def percent(self) -> int | None:
        return round(100 * self.right / self.n) if self.n else None


@dataclass
class Chart:
    skill: str
    title: str
    summary: str  # one sentence a screen reader says instead of the picture
    svg: SafeString
    points: list[WeekPoint] = field(default_factory=list)  # the table under the chart


def _week_label(day: date) -> str:
    # Translators: a short day/month label under a chart bar, as a Django date format.
    return date_format(day, pgettext("chart week label", "j/n"))


def skill_chart(
    skill: str, series: list[list], *, until: date, weeks: int = WEEKS_SHOWN, chart_id: str = ""
) -> Chart:
    """Bars of the share of right answers per week, for the `weeks` weeks ending at `until`.

    series: [[week ISO date, attempts, right], ...] as stored in a report's data.
    """
    by_week = {date.fromisoformat(w): (n, right) for w, n, right in series}
    first = until - timedelta(weeks=weeks - 1)
    points = []
    for i in range(weeks):
        day = first + timedelta(weeks=i)
        n, right = by_week.get(day, (0, 0))
        points.append(WeekPoint(day, _week_label(day), n, right))
    title = str(SKILL_LABELS.get(skill, skill))
    summary = _summary(title, points)
    # Used in id attributes: only letters, digits, "-" and "_" get through.
    chart_id = re.sub(r"[^A-Za-z0-9_-]", "", chart_id or f"chart-{skill}") or "chart"
    return Chart(
        skill=skill,
        title=title,
        summary=summary,
        svg=_draw(points, title=title, summary=summary, chart_id=chart_id),
        points=[p for p in points if p.n],
    )


def _summary(title: str, points: list[WeekPoint]) -> str:
    played = [p for p in points if p.n]
    if not played:
        return _("%(skill)s: not tried in these weeks.") % {"skill": title}
    last = played[-1]
    text = ngettext(
        "%(skill)s: tried in %(weeks)d of the last %(total)d week.",
        "%(skill)s: tried in %(weeks)d of the last %(total)d weeks.",
        len(points),
    ) % {"skill": title, "weeks": len(played), "total": len(points)}
    text += " " + ngettext(
        "In the week of %(week)s, %(right)d right out of %(n)d try (%(percent)d %%).",
        "In the week of %(week)s, %(right)d right out of %(n)d tries (%(percent)d %%).",
        last.n,
    ) % {"week": last.label, "right": last.right, "n": last.n, "percent": last.percent}
    if len(played) >= 2:
        before = played[-2]
        if last.percent > before.percent:
            text += " " + _("Better than the week before.")
        elif last.percent < before.percent:
            text += " " + _("Not as good as the week before; that happens.")
    return text


def _bar_title(point: WeekPoint) -> str:
    return ngettext(
        "%(week)s: %(right)d right out of %(n)d try",
        "%(week)s: %(right)d right out of %(n)d tries",
        point.n,
    ) % {"week": point.label, "right": point.right, "n": point.n}


def _draw(points: list[WeekPoint], *, title: str, summary: str, chart_id: str) -> SafeString:
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / len(points)
    bar = slot * 0.7

    def y(percent: float) -> float:
        return TOP + plot_h * (1 - percent / 100)

    parts = [
        f'<svg class="skill-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="{chart_id}-t {chart_id}-d" xmlns="http://www.w3.org/2000/svg" '
        f'preserveAspectRatio="xMidYMid meet">',
        f'<title id="{chart_id}-t">{escape(title)}</title>',
        f'<desc id="{chart_id}-d">{escape(summary)}</desc>',
    ]
    for percent in (0, 50, 80, 100):  # 80 %: where "Confident" starts
        dash = ' stroke-dasharray="4 3"' if percent == 80 else ""
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(percent):.1f}" '
            f'y2="{y(percent):.1f}" stroke="#b9b4a5" stroke-width="1"{dash}/>'
        )
        parts.append(
            f'<text x="{LEFT - 5}" y="{y(percent) + 4:.1f}" text-anchor="end" '
            f'font-size="12" fill="#444">{percent} %</text>'
        )
    for i, point in enumerate(points):
        x = LEFT + i * slot + (slot - bar) / 2
        cx = x + bar / 2
        if point.n:
            band = BAND_BY_KEY.get(
                band_for(max(point.n, 5), point.right / point.n, None, timed=False) or "practising"
            )
            top = min(y(point.percent), TOP + plot_h - 3)  # 0 % still shows: it was played
            parts.append(
                f'<rect x="{x:.1f}" y="{top:.1f}" width="{bar:.1f}" '
                f'height="{TOP + plot_h - top:.1f}" fill="{band.colour}" '
                f'stroke="#3d3d3d" stroke-width="1"><title>{escape(_bar_title(point))}</title></rect>'
            )
        else:  # no play that week: a mark on the axis, not a bar of 0 %
            parts.append(
                f'<line x1="{x:.1f}" x2="{x + bar:.1f}" y1="{TOP + plot_h - 2:.1f}" '
                f'y2="{TOP + plot_h - 2:.1f}" stroke="#9a9a9a" stroke-width="2" '
                f'stroke-dasharray="2 2"/>'
            )
        if i % 2 == len(points) % 2 or len(points) <= 6:  # every other label: no overlap
            parts.append(
                f'<text x="{cx:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle" '
                f'font-size="12" fill="#333">{escape(point.label)}</text>'
            )
    caption = _("Share of right answers per week")  # outside the f-string, for makemessages
    parts.append(
        f'<text x="{LEFT}" y="{HEIGHT - 6}" font-size="12" fill="#555">{escape(caption)}</text>'
    )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every piece of text above was escaped


def report_charts(data: dict, *, weeks: int = WEEKS_SHOWN) -> list[Chart]:
    """A chart for every skill that the child has tried this school year."""
    until = date.fromisoformat(data["week_start"])
    return [
        skill_chart(
            skill, data["series"][skill], until=until, weeks=weeks, chart_id=f"chart-{skill}"
        )
        for skill in SKILL_LABELS
        if data.get("series", {}).get(skill)
    ]
