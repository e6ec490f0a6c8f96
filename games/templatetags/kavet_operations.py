"""An operation as a child sees it on the keys (− × ÷), wherever a page prints one.

    {% load kavet_operations %}<code>{{ text|printed }}</code>

The engine and the stored plays write operations in ASCII ("7 + 7 - 5 = 9");
games.wording.as_printed is the one conversion, and this filter only calls it.
"""

from __future__ import annotations

from django import template

from games.wording import as_printed

register = template.Library()


@register.filter
def printed(text: str) -> str:
    return as_printed(str(text or ""))
