"""{% figure value "week:right" %}: a report's number as a link to the moves it counts.

The page names the list's address once, `{% url 'reports:student_moves' student.pk as moves_base %}`;
the week is the report's (`report.week_start`, or the class report's `week_start`). Where no
address is named (the PDF), the number is shown as it is. The list is filtered by the same
names the figure was counted by (progress.play_figures): its length is the number shown.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.formats import number_format
from django.utils.html import format_html
from django.utils.http import urlencode

register = template.Library()


@register.simple_tag(takes_context=True)
def figure(
    context: template.Context, value: Any, key: str, base: str = "", week: Any = None
) -> str:
    """`value` linked to the list of `key`'s moves; `base` another list's address (a class
    report's row links to its student's list), `week` another week's (a chart's bar)."""
    base = base or context.get("moves_base")
    report = context.get("report")
    week = week or getattr(report, "week_start", None) or context.get("week_start")
    shown = number_format(value) if isinstance(value, int | float) else value
    if not base or week is None or value in (None, ""):
        return shown
    query = {"week": week.isoformat(), "f": key}
    return format_html('<a class="figure-link" href="{}?{}">{}</a>', base, urlencode(query), shown)
