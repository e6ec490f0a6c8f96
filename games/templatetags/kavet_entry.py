"""The operation builder's table of what may come next (games.entry), for static/js/table.js.

    {% load kavet_entry %}{% entry_table %}

A `<script type="application/json">`: data, never run, so the strict CSP allows it.
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from games.entry import entry_table_json

register = template.Library()


@register.simple_tag
def entry_table() -> SafeString:
    # Numbers and five ASCII class names only: nothing to escape inside a script element.
    return format_html(
        '<script type="application/json" id="entry-table">{}</script>',
        mark_safe(entry_table_json()),  # noqa: S308 - json.dumps of ints and fixed names
    )
