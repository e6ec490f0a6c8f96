"""The operation builder's table of what may come next (games.entry), for static/js/table.js.

    {% load kavet_entry %}{% entry_table %}

A data attribute, read by the script: no inline script of any kind (tests/site/test_csp.py).
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from games.entry import entry_table_json

register = template.Library()


@register.simple_tag
def entry_table() -> SafeString:
    return format_html('<template id="entry-table" data-table="{}"></template>', entry_table_json())
